// Original file: gateway/v1/control_plane.proto


export interface CatalogueDefaults {
  'embeddings'?: (string);
}

export interface CatalogueDefaults__Output {
  'embeddings': (string);
}
