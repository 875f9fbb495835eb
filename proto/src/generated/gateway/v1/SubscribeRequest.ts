// Original file: gateway/v1/control_plane.proto


export interface SubscribeRequest {
  'replicaId'?: (string);
}

export interface SubscribeRequest__Output {
  'replicaId': (string);
}
