// Original file: gateway/v1/control_plane.proto

import type { Long } from '@grpc/proto-loader';

export interface LeaseResponse {
  'granted'?: (boolean);
  'amountNano'?: (number | string | Long);
  'ttlSeconds'?: (number);
  'drawEntries'?: (boolean);
}

export interface LeaseResponse__Output {
  'granted': (boolean);
  'amountNano': (string);
  'ttlSeconds': (number);
  'drawEntries': (boolean);
}
