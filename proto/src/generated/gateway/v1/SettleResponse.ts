// Original file: gateway/v1/control_plane.proto

import type { Long } from '@grpc/proto-loader';

// Original file: gateway/v1/control_plane.proto

export const _gateway_v1_SettleResponse_Outcome = {
  OUTCOME_UNSPECIFIED: 'OUTCOME_UNSPECIFIED',
  SETTLED: 'SETTLED',
  ALREADY_RELEASED: 'ALREADY_RELEASED',
  UNKNOWN_REQUEST: 'UNKNOWN_REQUEST',
} as const;

export type _gateway_v1_SettleResponse_Outcome =
  | 'OUTCOME_UNSPECIFIED'
  | 0
  | 'SETTLED'
  | 1
  | 'ALREADY_RELEASED'
  | 2
  | 'UNKNOWN_REQUEST'
  | 3

export type _gateway_v1_SettleResponse_Outcome__Output = typeof _gateway_v1_SettleResponse_Outcome[keyof typeof _gateway_v1_SettleResponse_Outcome]

export interface SettleResponse {
  'outcome'?: (_gateway_v1_SettleResponse_Outcome);
  'debitedNano'?: (number | string | Long);
}

export interface SettleResponse__Output {
  'outcome': (_gateway_v1_SettleResponse_Outcome__Output);
  'debitedNano': (string);
}
