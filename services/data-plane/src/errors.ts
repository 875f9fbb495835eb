// The data plane's errors: codes, statuses and types come from the one error
// table (@gateway/proto); the messages are written here, never copied from an
// upstream (docs/errors.md).
import { echo, GatewayError } from "@gateway/proto";

export { GatewayError };

export type InvalidRequestCode =
  | "invalid_body"
  | "invalid_request"
  | "model_required"
  | "model_unknown"
  | "model_ambiguous"
  | "no_eligible_model"
  | "invalid_service"
  | "unsupported_input";

/** `param`: the request field at fault, when there is one (OpenAI's `error.param`). */
export const invalidRequest = (code: InvalidRequestCode, message: string, param?: string) => new GatewayError(code, message, { param });
export const invalidApiKey = () => new GatewayError("invalid_api_key", "Missing, malformed, unknown, expired or revoked API key.");
export const insufficientCredits = () =>
  new GatewayError("insufficient_credits", "The project's prepaid balance cannot cover this request. Top up the balance.");
export const routeNotFound = (method: string, url: string) => new GatewayError("not_found", `No route for ${echo(method)} ${echo(url)}.`);
export const modelNotFound = (id: string) =>
  new GatewayError("model_not_found", `The model ${echo(id)} does not exist here. See GET /v1/models?all=1.`);
export const bodyTooLarge = (limit: number) => new GatewayError("body_too_large", `The request body is larger than ${limit} bytes.`);
export const bodyUnreadable = () => new GatewayError("invalid_body", "The request body could not be read.");
/** "project" or "key": whose limit or cap refused (a key's own are within its project's: docs/keys.md). */
export type LimitScope = "project" | "key";
const scopeWords = { project: "this project", key: "this API key" } as const;
export const rateLimitExceeded = (retryAfterSeconds: number, scope: LimitScope = "project") =>
  new GatewayError("rate_limit_exceeded", `Too many requests for ${scopeWords[scope]} in the last minute.`, {
    headers: { "retry-after": String(Math.max(1, retryAfterSeconds)) },
  });
/** Too many keys from one client address found not valid (AUTH_FAILURES_PER_MINUTE): refused without asking the control plane. */
export const authFailuresExceeded = (retryAfterSeconds: number) =>
  new GatewayError("auth_failures_exceeded", "Too many requests with keys that are not valid came from this address. Retry later.", {
    headers: { "retry-after": String(retryAfterSeconds) }, // at least 1: FailedValidationLimit.take
  });
export const spendCapExceeded = (retryAfterSeconds: number, scope: LimitScope = "project") =>
  new GatewayError("spend_cap_exceeded", `The daily spend cap of ${scopeWords[scope]} is reached; it resets at 00:00 UTC.`, {
    headers: { "retry-after": String(retryAfterSeconds) },
  });
export const overloaded = (limit: number) =>
  new GatewayError(
    "overloaded",
    `This replica is serving its ${limit} model calls at most. Send the request again: another replica may take it.`,
    {
      headers: { "retry-after": "1" },
    },
  );
export const keyBudgetExceeded = () =>
  new GatewayError("key_budget_exceeded", "This API key's budget cannot cover this request. An operator can raise it.");
export const controlPlaneUnavailable = (message = "Keys or balances cannot be checked right now. Retry shortly.") =>
  new GatewayError("control_plane_unavailable", message);
/** Whether a control-plane failure is an outage to ride out (anything unexpected counts as one), not one it answered with. */
export const isOutage = (error: unknown): boolean => !(error instanceof GatewayError) || error.retryable;
export const internalError = (message = "The gateway failed to handle the request.") => new GatewayError("internal_error", message);
/** Not sent: the client is gone. The error handler only ends the response. */
export const clientClosed = () => new GatewayError("client_closed", "The client closed the request.");
export const upstreamUnreachable = () => new GatewayError("upstream_unreachable", "The upstream provider could not be reached.");
/** A stream that had started broke: its last event. */
export const streamFailed = () => new GatewayError("stream_failed", "The upstream provider failed during the stream.");

/** An upstream status that is neither 200 nor an error (a redirect): the caller gets 502, never the status itself. */
export const upstreamUnexpectedStatus = (status: number) =>
  new GatewayError("upstream_failed", `The upstream provider answered with HTTP ${status} instead of an answer.`, { status: 502 });

/** An upstream answer larger than UPSTREAM_MAX_BODY_BYTES: never buffered whole, 502. */
export const upstreamAnswerTooLarge = (limitBytes: number) =>
  new GatewayError("upstream_failed", `The upstream provider's answer is larger than the gateway relays (${limitBytes} bytes).`, {
    status: 502,
  });

export type UpstreamErrorCategory =
  | "context_window_exceeded"
  | "content_policy"
  | "unsupported_parameter"
  | "invalid_image"
  | "model_not_found"
  /** The operator's quota at the provider (Bedrock's ServiceQuotaExceededException, a 400): acted on as a 429. */
  | "quota_exceeded"
  /** The model failed or timed out at the provider (Bedrock's ModelTimeoutException 408, ModelErrorException 424): acted on as a 502. */
  | "provider_failed";

const CATEGORY_TEXT: Record<UpstreamErrorCategory, string> = {
  context_window_exceeded: "the request exceeds the model's context window",
  content_policy: "the request was refused under the provider's content policy",
  unsupported_parameter: "a parameter is not supported by this model",
  invalid_image: "an image in the request could not be used",
  model_not_found: "the model was not found at the provider",
  quota_exceeded: "the provider's quota for this access path is exhausted",
  provider_failed: "the model failed or timed out at the provider",
};

/** The status an upstream error stands for: its own, unless its category says the provider's side failed under another. */
export function effectiveStatus(status: number, category: UpstreamErrorCategory | undefined): number {
  if (category === "quota_exceeded") return 429;
  if (category === "provider_failed" && status < 500) return 502;
  return status;
}

/**
 * An upstream refused or failed: its status is kept, its body and headers never relayed. The
 * message names a category recognised from the upstream's structured fields; a Retry-After is
 * passed on only as whole seconds.
 */
export function upstreamFailure(
  status: number,
  detail: { category?: UpstreamErrorCategory; retryAfterSeconds?: number } = {},
): GatewayError {
  const headers: Record<string, string> = detail.retryAfterSeconds ? { "retry-after": String(detail.retryAfterSeconds) } : {};
  const because = detail.category ? `: ${CATEGORY_TEXT[detail.category]}` : "";
  if (status === 429)
    return new GatewayError("upstream_rate_limited", `The upstream provider is rate limiting requests${because}.`, { headers });
  if (status >= 500) return new GatewayError("upstream_failed", `The upstream provider failed to answer${because}.`, { status, headers });
  return new GatewayError("upstream_rejected", `The upstream provider rejected the request${because}.`, { status, headers });
}
