// Original file: gateway/v1/control_plane.proto

import type { TokenRates as _gateway_v1_TokenRates, TokenRates__Output as _gateway_v1_TokenRates__Output } from '../../gateway/v1/TokenRates';

export interface LongContextPrice {
  'aboveInputTokens'?: (number);
  'rates'?: (_gateway_v1_TokenRates | null);
}

export interface LongContextPrice__Output {
  'aboveInputTokens': (number);
  'rates': (_gateway_v1_TokenRates__Output | null);
}
