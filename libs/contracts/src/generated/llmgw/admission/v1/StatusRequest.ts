// Original file: llmgw/admission/v1/admission.proto


export interface StatusRequest {
}

export interface StatusRequest__Output {
}
