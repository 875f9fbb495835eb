// Original file: gateway/v1/control_plane.proto


export interface HoldRef {
  'requestId'?: (string);
  'projectId'?: (string);
}

export interface HoldRef__Output {
  'requestId': (string);
  'projectId': (string);
}
