// Original file: gateway/v1/control_plane.proto


export interface KeyChanged {
  'projectId'?: (string);
  'keyId'?: (string);
}

export interface KeyChanged__Output {
  'projectId': (string);
  'keyId': (string);
}
