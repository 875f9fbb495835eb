// Original file: gateway/v1/control_plane.proto

import type { CostPart as _gateway_v1_CostPart, CostPart__Output as _gateway_v1_CostPart__Output } from '../../gateway/v1/CostPart';
import type { Long } from '@grpc/proto-loader';

export interface SettleRequest {
  'requestId'?: (string);
  'amountNano'?: (number | string | Long);
  'model'?: (string);
  'accessPath'?: (string);
  'inputTokens'?: (number);
  'outputTokens'?: (number);
  'projectId'?: (string);
  'costParts'?: (_gateway_v1_CostPart)[];
}

export interface SettleRequest__Output {
  'requestId': (string);
  'amountNano': (string);
  'model': (string);
  'accessPath': (string);
  'inputTokens': (number);
  'outputTokens': (number);
  'projectId': (string);
  'costParts': (_gateway_v1_CostPart__Output)[];
}
