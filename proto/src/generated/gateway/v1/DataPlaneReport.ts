// Original file: gateway/v1/control_plane.proto

import type { CircuitReport as _gateway_v1_CircuitReport, CircuitReport__Output as _gateway_v1_CircuitReport__Output } from '../../gateway/v1/CircuitReport';
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
}
