// Original file: gateway/v1/control_plane.proto


export interface CheckSpendRequest {
  'projectId'?: (string);
  'keyId'?: (string);
}

export interface CheckSpendRequest__Output {
  'projectId': (string);
  'keyId': (string);
}
