// Original file: gateway/v1/control_plane.proto


export interface KeyRevoked {
  'projectId'?: (string);
  'keyId'?: (string);
}

export interface KeyRevoked__Output {
  'projectId': (string);
  'keyId': (string);
}
