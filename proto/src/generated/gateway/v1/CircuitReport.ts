// Original file: gateway/v1/control_plane.proto


export interface CircuitReport {
  'path'?: (string);
  'state'?: (string);
  'consecutiveFailures'?: (number);
  'opens'?: (number);
  'projectsOpen'?: (number);
}

export interface CircuitReport__Output {
  'path': (string);
  'state': (string);
  'consecutiveFailures': (number);
  'opens': (number);
  'projectsOpen': (number);
}
