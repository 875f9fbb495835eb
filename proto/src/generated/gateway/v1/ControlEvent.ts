// Original file: gateway/v1/control_plane.proto

import type { Catalogue as _gateway_v1_Catalogue, Catalogue__Output as _gateway_v1_Catalogue__Output } from '../../gateway/v1/Catalogue';
import type { KeyRevoked as _gateway_v1_KeyRevoked, KeyRevoked__Output as _gateway_v1_KeyRevoked__Output } from '../../gateway/v1/KeyRevoked';
import type { ProjectChanged as _gateway_v1_ProjectChanged, ProjectChanged__Output as _gateway_v1_ProjectChanged__Output } from '../../gateway/v1/ProjectChanged';
import type { Heartbeat as _gateway_v1_Heartbeat, Heartbeat__Output as _gateway_v1_Heartbeat__Output } from '../../gateway/v1/Heartbeat';
import type { KeyChanged as _gateway_v1_KeyChanged, KeyChanged__Output as _gateway_v1_KeyChanged__Output } from '../../gateway/v1/KeyChanged';

export interface ControlEvent {
  'catalogue'?: (_gateway_v1_Catalogue | null);
  'keyRevoked'?: (_gateway_v1_KeyRevoked | null);
  'projectChanged'?: (_gateway_v1_ProjectChanged | null);
  'heartbeat'?: (_gateway_v1_Heartbeat | null);
  'keyChanged'?: (_gateway_v1_KeyChanged | null);
  'event'?: "catalogue"|"keyRevoked"|"projectChanged"|"heartbeat"|"keyChanged";
}

export interface ControlEvent__Output {
  'catalogue'?: (_gateway_v1_Catalogue__Output | null);
  'keyRevoked'?: (_gateway_v1_KeyRevoked__Output | null);
  'projectChanged'?: (_gateway_v1_ProjectChanged__Output | null);
  'heartbeat'?: (_gateway_v1_Heartbeat__Output | null);
  'keyChanged'?: (_gateway_v1_KeyChanged__Output | null);
  'event'?: "catalogue"|"keyRevoked"|"projectChanged"|"heartbeat"|"keyChanged";
}
