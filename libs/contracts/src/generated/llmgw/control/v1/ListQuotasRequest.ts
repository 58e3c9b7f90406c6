// Original file: llmgw/control/v1/control.proto


export interface ListQuotasRequest {
}

export interface ListQuotasRequest__Output {
}
