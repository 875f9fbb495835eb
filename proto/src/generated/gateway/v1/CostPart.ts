// Original file: gateway/v1/control_plane.proto

import type { Long } from '@grpc/proto-loader';

export interface CostPart {
  'component'?: (string);
  'units'?: (number | string | Long);
  'nano'?: (number | string | Long);
}

export interface CostPart__Output {
  'component': (string);
  'units': (string);
  'nano': (string);
}
