// Original file: gateway/v1/control_plane.proto

import type { Price as _gateway_v1_Price, Price__Output as _gateway_v1_Price__Output } from '../../gateway/v1/Price';

export interface AccessPath {
  'provider'?: (string);
  'upstreamModel'?: (string);
  'credentialsRef'?: (string);
  'price'?: (_gateway_v1_Price | null);
}

export interface AccessPath__Output {
  'provider': (string);
  'upstreamModel': (string);
  'credentialsRef': (string);
  'price': (_gateway_v1_Price__Output | null);
}
