// Original file: gateway/v1/control_plane.proto


export interface GetCatalogueRequest {
}

export interface GetCatalogueRequest__Output {
}
