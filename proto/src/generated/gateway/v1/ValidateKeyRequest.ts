// Original file: gateway/v1/control_plane.proto


export interface ValidateKeyRequest {
  'key'?: (string);
}

export interface ValidateKeyRequest__Output {
  'key': (string);
}
