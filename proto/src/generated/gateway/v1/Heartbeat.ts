// Original file: gateway/v1/control_plane.proto

import type { Long } from '@grpc/proto-loader';

export interface Heartbeat {
  'unixMs'?: (number | string | Long);
}

export interface Heartbeat__Output {
  'unixMs': (string);
}
