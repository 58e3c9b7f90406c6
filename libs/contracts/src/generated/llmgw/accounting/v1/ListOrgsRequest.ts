// Original file: llmgw/accounting/v1/accounting.proto


export interface ListOrgsRequest {
}

export interface ListOrgsRequest__Output {
}
