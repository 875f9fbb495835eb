// Original file: gateway/v1/control_plane.proto


export interface CatalogueDefaults {
  'tiers'?: ({[key: string]: string});
  'embeddings'?: (string);
}

export interface CatalogueDefaults__Output {
  'tiers': ({[key: string]: string});
  'embeddings': (string);
}
