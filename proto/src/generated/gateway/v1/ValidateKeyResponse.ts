// Original file: gateway/v1/control_plane.proto

import type { ProjectLimits as _gateway_v1_ProjectLimits, ProjectLimits__Output as _gateway_v1_ProjectLimits__Output } from '../../gateway/v1/ProjectLimits';
import type { KeyLimits as _gateway_v1_KeyLimits, KeyLimits__Output as _gateway_v1_KeyLimits__Output } from '../../gateway/v1/KeyLimits';

export interface ValidateKeyResponse {
  'valid'?: (boolean);
  'projectId'?: (string);
  'keyId'?: (string);
  'limits'?: (_gateway_v1_ProjectLimits | null);
  'cacheTtlSeconds'?: (number);
  'keyLimits'?: (_gateway_v1_KeyLimits | null);
}

export interface ValidateKeyResponse__Output {
  'valid': (boolean);
  'projectId': (string);
  'keyId': (string);
  'limits': (_gateway_v1_ProjectLimits__Output | null);
  'cacheTtlSeconds': (number);
  'keyLimits': (_gateway_v1_KeyLimits__Output | null);
}
