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

/** How often both planes' HTTP servers check for requests past their timeouts (Node's default: every 30 s). */
export const TIMEOUT_CHECK_INTERVAL_MS = 1000;

/** After a refused request's answer, how long what the client still sends is read and dropped before its socket is closed. */
export const LINGER_MS = 2_000;
/** Sockets answered and lingering: the parser refuses each further chunk too, and one answer is all there is. */
const lingering = new WeakSet<object>();

interface ClientSocket {
  destroyed: boolean;
  writable: boolean;
  _httpMessage?: { headersSent?: boolean } | null;
  write(text: string): unknown;
  end(): unknown;
  resume(): unknown;
  on(event: "close", listener: () => void): unknown;
  destroy(error?: Error): void;
}

/**
 * fastify's `clientErrorHandler` for both planes: the answer in the table's shape, then the socket is
 * closed (its stream is unreadable). A reset connection has nobody left to answer; one whose answer
 * already began cannot take a second.
 */
export function answerClientError(error: { code?: string; rawPacket?: unknown }, socket: ClientSocket): void {
  if (error.code === "ECONNRESET" || socket.destroyed || lingering.has(socket)) return;
  if (!socket.writable || socket._httpMessage?.headersSent) {
    socket.destroy(error as Error);
    return;
  }
  // The parser's bytes tell a HEAD, whose answer has no body: a client reads one after it as garbage.
  const head = Buffer.isBuffer(error.rawPacket) && error.rawPacket.subarray(0, 5).toString("latin1") === "HEAD ";
  socket.write(rawErrorResponse(clientErrorFailure(error), head));
  lingerThenClose(socket);
}

/**
 * Closing a socket with unread bytes (the rest of a body sent after oversized headers) makes the kernel
 * reset the connection, and a reset can overtake the answer: the client sees ECONNRESET instead of the
 * 431. So the answer is followed by a FIN, what still arrives is read and dropped, and the socket is
 * closed once the client closes its side or LINGER_MS passed, whichever is first.
 */
function lingerThenClose(socket: ClientSocket): void {
  lingering.add(socket);
  socket.end();
  const timer = setTimeout(() => socket.destroy(), LINGER_MS);
  timer.unref();
  socket.on("close", () => clearTimeout(timer));
  socket.resume();
}
