// Original file: gateway/v1/control_plane.proto

import type { DrawResult as _gateway_v1_DrawResult, DrawResult__Output as _gateway_v1_DrawResult__Output } from '../../gateway/v1/DrawResult';

export interface DrawResponse {
  'results'?: (_gateway_v1_DrawResult)[];
}

export interface DrawResponse__Output {
  'results': (_gateway_v1_DrawResult__Output)[];
}
