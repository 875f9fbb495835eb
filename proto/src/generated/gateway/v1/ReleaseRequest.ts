// Original file: gateway/v1/control_plane.proto


export interface ReleaseRequest {
  'requestId'?: (string);
}

export interface ReleaseRequest__Output {
  'requestId': (string);
}
