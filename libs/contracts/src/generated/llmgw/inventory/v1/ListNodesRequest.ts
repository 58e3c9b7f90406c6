// Original file: llmgw/inventory/v1/inventory.proto


export interface ListNodesRequest {
}

export interface ListNodesRequest__Output {
}
