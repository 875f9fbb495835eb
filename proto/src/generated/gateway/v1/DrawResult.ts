// Original file: gateway/v1/control_plane.proto

import type { Long } from '@grpc/proto-loader';

// Original file: gateway/v1/control_plane.proto

export const _gateway_v1_DrawResult_Outcome = {
  OUTCOME_UNSPECIFIED: 'OUTCOME_UNSPECIFIED',
  SETTLED: 'SETTLED',
  UNKNOWN_LEASE: 'UNKNOWN_LEASE',
  FAILED: 'FAILED',
  INVALID: 'INVALID',
} as const;

export type _gateway_v1_DrawResult_Outcome =
  | 'OUTCOME_UNSPECIFIED'
  | 0
  | 'SETTLED'
  | 1
  | 'UNKNOWN_LEASE'
  | 2
  | 'FAILED'
  | 3
  | 'INVALID'
  | 4

export type _gateway_v1_DrawResult_Outcome__Output = typeof _gateway_v1_DrawResult_Outcome[keyof typeof _gateway_v1_DrawResult_Outcome]

export interface DrawResult {
  'outcome'?: (_gateway_v1_DrawResult_Outcome);
  'debitedNano'?: (number | string | Long);
}

export interface DrawResult__Output {
  'outcome': (_gateway_v1_DrawResult_Outcome__Output);
  'debitedNano': (string);
}
