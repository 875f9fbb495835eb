// Original file: gateway/v1/control_plane.proto

import type { ProjectLimits as _gateway_v1_ProjectLimits, ProjectLimits__Output as _gateway_v1_ProjectLimits__Output } from '../../gateway/v1/ProjectLimits';

export interface ProjectChanged {
  'projectId'?: (string);
  'limits'?: (_gateway_v1_ProjectLimits | null);
}

export interface ProjectChanged__Output {
  'projectId': (string);
  'limits': (_gateway_v1_ProjectLimits__Output | null);
}
