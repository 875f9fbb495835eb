// Errors the data plane answers with. Each has an HTTP status, an OpenAI-style
// `type` and a stable `code`; the app's one error handler renders them as
// {"error":{"type","code","message"}} (docs/errors.md, decisions.md).
export class GatewayError extends Error {
  constructor(
    readonly status: number,
    readonly type: string,
    readonly code: string | number,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }

  toBody(): { error: { type: string; code: string | number; message: string } } {
    return { error: { type: this.type, code: this.code, message: this.message } };
  }
}

export const invalidRequest = (code: string, message: string) => new GatewayError(400, "invalid_request_error", code, message);
export const invalidApiKey = () =>
  new GatewayError(401, "authentication_error", "invalid_api_key", "Missing, malformed, unknown or revoked API key.");
export const insufficientCredits = () =>
  new GatewayError(
    402,
    "billing_error",
    "insufficient_credits",
    "The project's prepaid balance cannot cover this request. Top up the balance.",
  );
export const routeNotFound = (method: string, url: string) =>
  new GatewayError(404, "invalid_request_error", "not_found", `No route for ${method} ${url}.`);
export const bodyTooLarge = (limit: number) =>
  new GatewayError(413, "invalid_request_error", "body_too_large", `The request body is larger than ${limit} bytes.`);
export const rateLimitExceeded = (retryAfterSeconds: number) =>
  new GatewayError(429, "rate_limit_error", "rate_limit_exceeded", "Too many requests for this project in the last minute.", {
    "retry-after": String(Math.max(1, retryAfterSeconds)),
  });
export const spendCapExceeded = (retryAfterSeconds: number) =>
  new GatewayError(429, "billing_error", "spend_cap_exceeded", "The project's daily spend cap is reached; it resets at 00:00 UTC.", {
    "retry-after": String(retryAfterSeconds),
  });
export const controlPlaneUnavailable = () =>
  new GatewayError(503, "service_unavailable", "control_plane_unavailable", "Keys or balances cannot be checked right now. Retry shortly.");
/** Not sent: the client is gone. The error handler only ends the response. */
export const clientClosed = () => new GatewayError(499, "invalid_request_error", "client_closed", "The client closed the request.");
export const upstreamUnreachable = () => new GatewayError(504, "upstream_error", 504, "The upstream provider could not be reached.");

export type UpstreamErrorCategory =
  | "context_window_exceeded"
  | "content_policy"
  | "unsupported_parameter"
  | "invalid_image"
  | "model_not_found";

const CATEGORY_TEXT: Record<UpstreamErrorCategory, string> = {
  context_window_exceeded: "the request exceeds the model's context window",
  content_policy: "the request was refused under the provider's content policy",
  unsupported_parameter: "a parameter is not supported by this model",
  invalid_image: "an image in the request could not be used",
  model_not_found: "the model was not found at the provider",
};

/**
 * An upstream refused or failed: its status is preserved, its body and headers
 * never relayed (spec 7.2). The message is the gateway's own, naming a
 * category recognised from the upstream's structured fields; a Retry-After is
 * passed on only as whole seconds.
 */
export function upstreamFailure(
  status: number,
  detail: { category?: UpstreamErrorCategory; retryAfterSeconds?: number } = {},
): GatewayError {
  const headers: Record<string, string> = detail.retryAfterSeconds ? { "retry-after": String(detail.retryAfterSeconds) } : {};
  const because = detail.category ? `: ${CATEGORY_TEXT[detail.category]}` : "";
  if (status === 429)
    return new GatewayError(429, "rate_limit_error", 429, `The upstream provider is rate limiting requests${because}.`, headers);
  if (status >= 500)
    return new GatewayError(status, "upstream_error", status, `The upstream provider failed to answer${because}.`, headers);
  return new GatewayError(status, "upstream_rejected", status, `The upstream provider rejected the request${because}.`, headers);
}
