// Original file: gateway/v1/control_plane.proto

import type { Long } from '@grpc/proto-loader';

export interface LeaseRequest {
  'leaseId'?: (string);
  'projectId'?: (string);
  'amountNano'?: (number | string | Long);
  'minAmountNano'?: (number | string | Long);
}

export interface LeaseRequest__Output {
  'leaseId': (string);
  'projectId': (string);
  'amountNano': (string);
  'minAmountNano': (string);
}
