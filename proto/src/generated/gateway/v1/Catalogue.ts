// Original file: gateway/v1/control_plane.proto

import type { Model as _gateway_v1_Model, Model__Output as _gateway_v1_Model__Output } from '../../gateway/v1/Model';
import type { CatalogueDefaults as _gateway_v1_CatalogueDefaults, CatalogueDefaults__Output as _gateway_v1_CatalogueDefaults__Output } from '../../gateway/v1/CatalogueDefaults';

export interface Catalogue {
  'revision'?: (string);
  'models'?: (_gateway_v1_Model)[];
  'defaults'?: (_gateway_v1_CatalogueDefaults | null);
}

export interface Catalogue__Output {
  'revision': (string);
  'models': (_gateway_v1_Model__Output)[];
  'defaults': (_gateway_v1_CatalogueDefaults__Output | null);
}
