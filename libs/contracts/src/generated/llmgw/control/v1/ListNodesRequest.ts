// Original file: llmgw/control/v1/control.proto


export interface ListNodesRequest {
}

export interface ListNodesRequest__Output {
}
