// The control plane's failures, built from the one error table (@gateway/proto): the admin API
// and the gRPC boundary render each from its row.
import { GatewayError } from "@gateway/proto/errors";
import { isDatabaseUnavailable } from "./database/database-unavailable";

export const notFound = (what: string): GatewayError => new GatewayError("not_found", `${what} not found`);
export const invalidRequest = (message: string): GatewayError => new GatewayError("invalid_request", message);
export const conflict = (message: string): GatewayError => new GatewayError("conflict", message);
export const unauthorized = (message: string): GatewayError => new GatewayError("unauthorized", message);
export const bodyTooLarge = (): GatewayError => new GatewayError("body_too_large", "request body too large");
export const databaseUnavailable = (cause: unknown): GatewayError =>
  new GatewayError("control_plane_unavailable", "the control plane cannot reach its database", { cause });
export const internalError = (cause: unknown): GatewayError =>
  new GatewayError("internal_error", "the control plane could not complete the request", { cause });

/** Any failure as one from the table: an unreachable database is an outage (retryable), anything else a bug. */
export function asGatewayError(error: unknown): GatewayError {
  if (error instanceof GatewayError) return error;
  return isDatabaseUnavailable(error) ? databaseUnavailable(error) : internalError(error);
}
