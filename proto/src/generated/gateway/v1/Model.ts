// Original file: gateway/v1/control_plane.proto

import type { AccessPath as _gateway_v1_AccessPath, AccessPath__Output as _gateway_v1_AccessPath__Output } from '../../gateway/v1/AccessPath';
import type { Long } from '@grpc/proto-loader';

export interface Model {
  'id'?: (string);
  'curated'?: (boolean);
  'tiers'?: (string)[];
  'purposes'?: (string)[];
  'ownedBy'?: (string);
  'created'?: (number | string | Long);
  'contextLength'?: (number);
  'maxOutputTokens'?: (number);
  'inputModalities'?: (string)[];
  'outputModalities'?: (string)[];
  'tools'?: (boolean);
  'jsonSchema'?: (boolean);
  'embeddings'?: (boolean);
  'paths'?: (_gateway_v1_AccessPath)[];
}

export interface Model__Output {
  'id': (string);
  'curated': (boolean);
  'tiers': (string)[];
  'purposes': (string)[];
  'ownedBy': (string);
  'created': (string);
  'contextLength': (number);
  'maxOutputTokens': (number);
  'inputModalities': (string)[];
  'outputModalities': (string)[];
  'tools': (boolean);
  'jsonSchema': (boolean);
  'embeddings': (boolean);
  'paths': (_gateway_v1_AccessPath__Output)[];
}
