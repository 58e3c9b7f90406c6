// Original file: llmgw/accounting/v1/accounting.proto


export interface ListLimitsRequest {
}

export interface ListLimitsRequest__Output {
}
