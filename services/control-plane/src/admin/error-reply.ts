// Admin API errors, rendered from the error table: `{"error":{"type","code","message","param"}}`, the row's
// status, and `x-should-retry` from its retryable flag (the header OpenAI's SDKs honour).
import { GatewayError } from "@gateway/proto";
import type { FastifyReply } from "fastify";
import { asGatewayError, bodyTooLarge, invalidRequest } from "../errors";

export function sendError(reply: FastifyReply, error: GatewayError): FastifyReply {
  return reply.code(error.status).headers(error.replyHeaders).send(error.toBody());
}

/** Any failure of an admin route, fastify's own included; `unexpected` is told of the ones that are not the caller's doing. */
export function adminError(error: unknown, unexpected: (error: unknown) => void): GatewayError {
  if (error instanceof GatewayError) return error;
  const failure = error as { validation?: unknown; statusCode?: number; message?: string };
  // Schema validation, unreadable JSON (400) and an unsupported content type (415) are all the caller's request.
  if (failure.validation || failure.statusCode === 400 || failure.statusCode === 415) {
    return invalidRequest(failure.message ?? "invalid request");
  }
  if (failure.statusCode === 413) return bodyTooLarge();
  unexpected(error);
  // An unreachable database is 503 control_plane_unavailable (retry later), a bug 500 internal_error.
  return asGatewayError(error);
}
