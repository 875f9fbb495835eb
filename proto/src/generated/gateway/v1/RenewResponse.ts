// Original file: gateway/v1/control_plane.proto


export interface RenewResponse {
  'active'?: (boolean)[];
  'ttlSeconds'?: (number);
}

export interface RenewResponse__Output {
  'active': (boolean)[];
  'ttlSeconds': (number);
}
