// Original file: llmgw/accounting/v1/accounting.proto


export interface SignOutResponse {
}

export interface SignOutResponse__Output {
}
