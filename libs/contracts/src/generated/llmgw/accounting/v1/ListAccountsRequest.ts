// Original file: llmgw/accounting/v1/accounting.proto


export interface ListAccountsRequest {
}

export interface ListAccountsRequest__Output {
}
