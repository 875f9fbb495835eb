// Original file: gateway/v1/control_plane.proto

import type { Long } from '@grpc/proto-loader';

export interface KeyReport {
  'fingerprint'?: (string);
  'group'?: (string);
  'weight'?: (number);
  'rpm'?: (number);
  'tpm'?: (number | string | Long);
  'state'?: (string);
  'untilUnixMs'?: (number | string | Long);
  'requestsLastMinute'?: (number);
  'tokensLastMinute'?: (number | string | Long);
}

export interface KeyReport__Output {
  'fingerprint': (string);
  'group': (string);
  'weight': (number);
  'rpm': (number);
  'tpm': (string);
  'state': (string);
  'untilUnixMs': (string);
  'requestsLastMinute': (number);
  'tokensLastMinute': (string);
}
