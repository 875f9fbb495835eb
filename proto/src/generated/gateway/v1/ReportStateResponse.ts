// Original file: gateway/v1/control_plane.proto


export interface ReportStateResponse {
}

export interface ReportStateResponse__Output {
}
