// Original file: gateway/v1/control_plane.proto

import type { CircuitReport as _gateway_v1_CircuitReport, CircuitReport__Output as _gateway_v1_CircuitReport__Output } from '../../gateway/v1/CircuitReport';
import type { KeyPoolReport as _gateway_v1_KeyPoolReport, KeyPoolReport__Output as _gateway_v1_KeyPoolReport__Output } from '../../gateway/v1/KeyPoolReport';
import type { Long } from '@grpc/proto-loader';

export interface DataPlaneReport {
  'replicaId'?: (string);
  'version'?: (string);
  'startedAtUnixMs'?: (number | string | Long);
  'reportIntervalMs'?: (number);
  'draining'?: (boolean);
  'unavailableReason'?: (string);
  'controlPlaneLink'?: (string);
  'controlPlaneCalls'?: (string);
  'catalogueRevision'?: (string);
  'rateLimit'?: (string);
  'circuits'?: (_gateway_v1_CircuitReport)[];
  'keyPools'?: (_gateway_v1_KeyPoolReport)[];
}

export interface DataPlaneReport__Output {
  'replicaId': (string);
  'version': (string);
  'startedAtUnixMs': (string);
  'reportIntervalMs': (number);
  'draining': (boolean);
  'unavailableReason': (string);
  'controlPlaneLink': (string);
  'controlPlaneCalls': (string);
  'catalogueRevision': (string);
  'rateLimit': (string);
  'circuits': (_gateway_v1_CircuitReport__Output)[];
  'keyPools': (_gateway_v1_KeyPoolReport__Output)[];
}
