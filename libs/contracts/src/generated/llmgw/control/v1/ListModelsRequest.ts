// Original file: llmgw/control/v1/control.proto


export interface ListModelsRequest {
}

export interface ListModelsRequest__Output {
}
