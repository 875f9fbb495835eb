// Original file: gateway/v1/control_plane.proto


// Original file: gateway/v1/control_plane.proto

export const _gateway_v1_ReleaseResponse_Outcome = {
  OUTCOME_UNSPECIFIED: 'OUTCOME_UNSPECIFIED',
  RELEASED: 'RELEASED',
  ALREADY_SETTLED: 'ALREADY_SETTLED',
  UNKNOWN_REQUEST: 'UNKNOWN_REQUEST',
  REDUCED: 'REDUCED',
} as const;

export type _gateway_v1_ReleaseResponse_Outcome =
  | 'OUTCOME_UNSPECIFIED'
  | 0
  | 'RELEASED'
  | 1
  | 'ALREADY_SETTLED'
  | 2
  | 'UNKNOWN_REQUEST'
  | 3
  | 'REDUCED'
  | 4

export type _gateway_v1_ReleaseResponse_Outcome__Output = typeof _gateway_v1_ReleaseResponse_Outcome[keyof typeof _gateway_v1_ReleaseResponse_Outcome]

export interface ReleaseResponse {
  'outcome'?: (_gateway_v1_ReleaseResponse_Outcome);
}

export interface ReleaseResponse__Output {
  'outcome': (_gateway_v1_ReleaseResponse_Outcome__Output);
}
