// Original file: gateway/v1/control_plane.proto

import type { Long } from '@grpc/proto-loader';

export interface ReserveRequest {
  'requestId'?: (string);
  'projectId'?: (string);
  'amountNano'?: (number | string | Long);
  'model'?: (string);
  'accessPath'?: (string);
  'minAmountNano'?: (number | string | Long);
  'keyId'?: (string);
}

export interface ReserveRequest__Output {
  'requestId': (string);
  'projectId': (string);
  'amountNano': (string);
  'model': (string);
  'accessPath': (string);
  'minAmountNano': (string);
  'keyId': (string);
}
