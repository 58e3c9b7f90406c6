// Original file: llmgw/control/v1/control.proto


export interface RoomVictim {
  'replicaId'?: (string);
  'model'?: (string);
  'capacityClass'?: (string);
  'why'?: (string);
  'detail'?: (string);
}

export interface RoomVictim__Output {
  'replicaId': (string);
  'model': (string);
  'capacityClass': (string);
  'why': (string);
  'detail': (string);
}
