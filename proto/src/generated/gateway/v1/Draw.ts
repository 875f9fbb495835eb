// Original file: gateway/v1/control_plane.proto

import type { CostPart as _gateway_v1_CostPart, CostPart__Output as _gateway_v1_CostPart__Output } from '../../gateway/v1/CostPart';
import type { Long } from '@grpc/proto-loader';

export interface Draw {
  'requestId'?: (string);
  'leaseId'?: (string);
  'projectId'?: (string);
  'amountNano'?: (number | string | Long);
  'holdNano'?: (number | string | Long);
  'model'?: (string);
  'accessPath'?: (string);
  'inputTokens'?: (number);
  'outputTokens'?: (number);
  'costParts'?: (_gateway_v1_CostPart)[];
  'keyId'?: (string);
  'entry'?: (Buffer | Uint8Array | string);
}

export interface Draw__Output {
  'requestId': (string);
  'leaseId': (string);
  'projectId': (string);
  'amountNano': (string);
  'holdNano': (string);
  'model': (string);
  'accessPath': (string);
  'inputTokens': (number);
  'outputTokens': (number);
  'costParts': (_gateway_v1_CostPart__Output)[];
  'keyId': (string);
  'entry': (Buffer);
}
