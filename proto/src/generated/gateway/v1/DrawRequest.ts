// Original file: gateway/v1/control_plane.proto

import type { Draw as _gateway_v1_Draw, Draw__Output as _gateway_v1_Draw__Output } from '../../gateway/v1/Draw';

export interface DrawRequest {
  'draws'?: (_gateway_v1_Draw)[];
}

export interface DrawRequest__Output {
  'draws': (_gateway_v1_Draw__Output)[];
}
