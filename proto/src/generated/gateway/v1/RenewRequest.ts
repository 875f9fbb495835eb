// Original file: gateway/v1/control_plane.proto

import type { HoldRef as _gateway_v1_HoldRef, HoldRef__Output as _gateway_v1_HoldRef__Output } from '../../gateway/v1/HoldRef';

export interface RenewRequest {
  'holds'?: (_gateway_v1_HoldRef)[];
}

export interface RenewRequest__Output {
  'holds': (_gateway_v1_HoldRef__Output)[];
}
