// Typed errors of the control plane. Each has a stable code and an HTTP
// status; the admin API's error handler and the gRPC boundary map them once.
export class ControlPlaneError extends Error {
  constructor(
    readonly code: string,
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export const notFound = (what: string): ControlPlaneError => new ControlPlaneError("not_found", 404, `${what} not found`);
export const invalidRequest = (message: string): ControlPlaneError => new ControlPlaneError("invalid_request", 400, message);
export const conflict = (message: string): ControlPlaneError => new ControlPlaneError("conflict", 409, message);
