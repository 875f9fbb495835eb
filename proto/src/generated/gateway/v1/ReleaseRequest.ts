// Original file: gateway/v1/control_plane.proto


export interface ReleaseRequest {
  'requestId'?: (string);
  'projectId'?: (string);
}

export interface ReleaseRequest__Output {
  'requestId': (string);
  'projectId': (string);
}
