// Original file: gateway/v1/control_plane.proto

import type { Long } from '@grpc/proto-loader';

export interface KeyLimits {
  'rpmLimit'?: (number);
  'moneyLimits'?: (boolean);
  'expiresAtUnixMs'?: (number | string | Long);
  'limitsKeyId'?: (string);
  '_rpmLimit'?: "rpmLimit";
}

export interface KeyLimits__Output {
  'rpmLimit'?: (number);
  'moneyLimits': (boolean);
  'expiresAtUnixMs': (string);
  'limitsKeyId': (string);
  '_rpmLimit'?: "rpmLimit";
}
