// Original file: gateway/v1/control_plane.proto

import type { Long } from '@grpc/proto-loader';

// Original file: gateway/v1/control_plane.proto

export const _gateway_v1_ReserveResponse_Outcome = {
  OUTCOME_UNSPECIFIED: 'OUTCOME_UNSPECIFIED',
  RESERVED: 'RESERVED',
  INSUFFICIENT_CREDITS: 'INSUFFICIENT_CREDITS',
  SPEND_CAP_EXCEEDED: 'SPEND_CAP_EXCEEDED',
  UNKNOWN_PROJECT: 'UNKNOWN_PROJECT',
  KEY_BUDGET_EXCEEDED: 'KEY_BUDGET_EXCEEDED',
  KEY_SPEND_CAP_EXCEEDED: 'KEY_SPEND_CAP_EXCEEDED',
} as const;

export type _gateway_v1_ReserveResponse_Outcome =
  | 'OUTCOME_UNSPECIFIED'
  | 0
  | 'RESERVED'
  | 1
  | 'INSUFFICIENT_CREDITS'
  | 2
  | 'SPEND_CAP_EXCEEDED'
  | 3
  | 'UNKNOWN_PROJECT'
  | 4
  | 'KEY_BUDGET_EXCEEDED'
  | 5
  | 'KEY_SPEND_CAP_EXCEEDED'
  | 6

export type _gateway_v1_ReserveResponse_Outcome__Output = typeof _gateway_v1_ReserveResponse_Outcome[keyof typeof _gateway_v1_ReserveResponse_Outcome]

export interface ReserveResponse {
  'outcome'?: (_gateway_v1_ReserveResponse_Outcome);
  'retryAfterSeconds'?: (number);
  'availableNano'?: (number | string | Long);
  'reservedNano'?: (number | string | Long);
  'ttlSeconds'?: (number);
}

export interface ReserveResponse__Output {
  'outcome': (_gateway_v1_ReserveResponse_Outcome__Output);
  'retryAfterSeconds': (number);
  'availableNano': (string);
  'reservedNano': (string);
  'ttlSeconds': (number);
}
