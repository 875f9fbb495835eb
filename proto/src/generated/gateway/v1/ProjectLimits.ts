// Original file: gateway/v1/control_plane.proto


export interface ProjectLimits {
  'rpmLimit'?: (number);
  '_rpmLimit'?: "rpmLimit";
}

export interface ProjectLimits__Output {
  'rpmLimit'?: (number);
  '_rpmLimit'?: "rpmLimit";
}
