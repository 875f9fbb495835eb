// Original file: gateway/v1/control_plane.proto

import type { Catalogue as _gateway_v1_Catalogue, Catalogue__Output as _gateway_v1_Catalogue__Output } from '../../gateway/v1/Catalogue';
import type { KeyRevoked as _gateway_v1_KeyRevoked, KeyRevoked__Output as _gateway_v1_KeyRevoked__Output } from '../../gateway/v1/KeyRevoked';
import type { ProjectChanged as _gateway_v1_ProjectChanged, ProjectChanged__Output as _gateway_v1_ProjectChanged__Output } from '../../gateway/v1/ProjectChanged';
import type { Heartbeat as _gateway_v1_Heartbeat, Heartbeat__Output as _gateway_v1_Heartbeat__Output } from '../../gateway/v1/Heartbeat';

export interface ControlEvent {
  'catalogue'?: (_gateway_v1_Catalogue | null);
  'keyRevoked'?: (_gateway_v1_KeyRevoked | null);
  'projectChanged'?: (_gateway_v1_ProjectChanged | null);
  'heartbeat'?: (_gateway_v1_Heartbeat | null);
  'event'?: "catalogue"|"keyRevoked"|"projectChanged"|"heartbeat";
}

export interface ControlEvent__Output {
  'catalogue'?: (_gateway_v1_Catalogue__Output | null);
  'keyRevoked'?: (_gateway_v1_KeyRevoked__Output | null);
  'projectChanged'?: (_gateway_v1_ProjectChanged__Output | null);
  'heartbeat'?: (_gateway_v1_Heartbeat__Output | null);
  'event'?: "catalogue"|"keyRevoked"|"projectChanged"|"heartbeat";
}
