// Original file: gateway/v1/control_plane.proto

import type { Long } from '@grpc/proto-loader';

export interface SettleRequest {
  'requestId'?: (string);
  'amountNano'?: (number | string | Long);
  'model'?: (string);
  'accessPath'?: (string);
  'inputTokens'?: (number);
  'outputTokens'?: (number);
  'projectId'?: (string);
}

export interface SettleRequest__Output {
  'requestId': (string);
  'amountNano': (string);
  'model': (string);
  'accessPath': (string);
  'inputTokens': (number);
  'outputTokens': (number);
  'projectId': (string);
}
