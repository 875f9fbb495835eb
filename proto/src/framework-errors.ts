// The answers fastify and Node's HTTP server would otherwise write themselves, in their own shape
// (`{"error":"Bad Request","message":"Client Error","statusCode":400}` or no body at all): both planes
// answer them from the one error table instead, statuses kept (docs/errors.md, "Before any route").
import { STATUS_CODES } from "node:http";
import { GatewayError } from "./errors";

/** A path fastify cannot decode (bad percent-encoding). */
export const BAD_URL_MESSAGE = "The request path is not a valid URL: a percent-encoded sequence in it does not decode.";

/** find-my-way's default: an id longer than this in a path parameter is refused with 414. */
export const MAX_PARAM_LENGTH = 100;

/** fastify's `frameworkErrors`: a path it cannot decode, or a path parameter over its length limit. */
export function routingFailure(error: { code?: string }): GatewayError {
  if (error.code === "FST_ERR_MAX_PARAM_LENGTH")
    return new GatewayError("uri_too_long", `A path parameter is longer than ${MAX_PARAM_LENGTH} characters.`);
  return new GatewayError("invalid_request", BAD_URL_MESSAGE);
}

/** A request refused after the replica began to close (fastify's `return503OnClosing` body is not the table's). */
export const shuttingDown = (): GatewayError =>
  new GatewayError("shutting_down", "This replica is shutting down. Send the request again: another replica will take it.");

/** Node's `clientError`: a request the HTTP parser refused, or one too slow to arrive. */
export function clientErrorFailure(error: { code?: string }): GatewayError {
  if (error.code === "ERR_HTTP_REQUEST_TIMEOUT")
    return new GatewayError("request_timeout", "The request did not arrive in time. Send it again.");
  if (error.code === "HPE_HEADER_OVERFLOW")
    return new GatewayError("headers_too_large", "The request line and headers are larger than the server accepts (16 KiB).");
  return new GatewayError("invalid_request", "The request is not valid HTTP/1.1.");
}

/** The raw HTTP/1.1 answer to write on the socket of a `clientError` (no request object exists to reply through); a HEAD's without its body. */
export function rawErrorResponse(failure: GatewayError, head = false): string {
  const body = JSON.stringify(failure.toBody());
  const headers = {
    "content-type": "application/json; charset=utf-8",
    "content-length": String(Buffer.byteLength(body)),
    ...failure.replyHeaders,
    connection: "close",
  };
  const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}`);
  return `HTTP/1.1 ${failure.status} ${STATUS_CODES[failure.status]}\r\n${lines.join("\r\n")}\r\n\r\n${head ? "" : body}`;
}

/**
 * fastify's `clientErrorHandler` for both planes: the answer in the table's shape, then the socket is
 * closed (its stream is unreadable). A reset connection has nobody left to answer; one whose answer
 * already began cannot take a second.
 */
export function answerClientError(
  error: { code?: string; rawPacket?: unknown },
  socket: {
    destroyed: boolean;
    writable: boolean;
    _httpMessage?: { headersSent?: boolean } | null;
    write(text: string): unknown;
    destroy(error?: Error): void;
  },
): void {
  if (error.code === "ECONNRESET" || socket.destroyed) return;
  // The parser's bytes tell a HEAD, whose answer has no body: a client reads one after it as garbage.
  const head = Buffer.isBuffer(error.rawPacket) && error.rawPacket.subarray(0, 5).toString("latin1") === "HEAD ";
  if (socket.writable && !socket._httpMessage?.headersSent) socket.write(rawErrorResponse(clientErrorFailure(error), head));
  socket.destroy(error as Error);
}
