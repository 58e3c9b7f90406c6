// Original file: llmgw/inventory/v1/inventory.proto


export interface WatchFleetRequest {
  'includeStats'?: (boolean);
}

export interface WatchFleetRequest__Output {
  'includeStats': (boolean);
}
