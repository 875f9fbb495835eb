// Original file: gateway/v1/control_plane.proto

import type { KeyReport as _gateway_v1_KeyReport, KeyReport__Output as _gateway_v1_KeyReport__Output } from '../../gateway/v1/KeyReport';

export interface KeyPoolReport {
  'pool'?: (string);
  'source'?: (string);
  'keys'?: (_gateway_v1_KeyReport)[];
}

export interface KeyPoolReport__Output {
  'pool': (string);
  'source': (string);
  'keys': (_gateway_v1_KeyReport__Output)[];
}
