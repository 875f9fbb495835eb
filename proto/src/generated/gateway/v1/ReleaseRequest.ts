// Original file: gateway/v1/control_plane.proto

import type { Long } from '@grpc/proto-loader';

export interface ReleaseRequest {
  'requestId'?: (string);
  'projectId'?: (string);
  'keepNano'?: (number | string | Long);
}

export interface ReleaseRequest__Output {
  'requestId': (string);
  'projectId': (string);
  'keepNano': (string);
}
