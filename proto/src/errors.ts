// The error table of both planes: every code an answer can carry, with its HTTP status, its
// OpenAI-style `type`, whether the same request may succeed when simply sent again (`retryable`),
// and the gRPC status it travels as between the planes. Every edge renders from this table:
// the data plane's JSON and SSE errors, the admin API, the gRPC boundary (docs/errors.md).
import { status as grpcStatus } from "@grpc/grpc-js";

export interface ErrorKind {
  status: number;
  type: string;
  retryable: boolean;
  grpc: grpcStatus;
  /** "status": the wire `code` is the HTTP status as a number (upstream failures keep the upstream's status). */
  wireCode?: "status";
}

const kind = (status: number, type: string, retryable: boolean, grpc: grpcStatus, wireCode?: "status"): ErrorKind =>
  wireCode ? { status, type, retryable, grpc, wireCode } : { status, type, retryable, grpc };

const {
  INVALID_ARGUMENT,
  UNAUTHENTICATED,
  FAILED_PRECONDITION,
  NOT_FOUND,
  RESOURCE_EXHAUSTED,
  UNAVAILABLE,
  INTERNAL,
  CANCELLED,
  DEADLINE_EXCEEDED,
} = grpcStatus;

export const ERROR_TABLE = {
  // The caller's request.
  invalid_body: kind(400, "invalid_request_error", false, INVALID_ARGUMENT),
  invalid_request: kind(400, "invalid_request_error", false, INVALID_ARGUMENT),
  model_required: kind(400, "invalid_request_error", false, INVALID_ARGUMENT),
  model_unknown: kind(400, "invalid_request_error", false, INVALID_ARGUMENT),
  model_ambiguous: kind(400, "invalid_request_error", false, INVALID_ARGUMENT),
  no_eligible_model: kind(400, "invalid_request_error", false, INVALID_ARGUMENT),
  invalid_service: kind(400, "invalid_request_error", false, INVALID_ARGUMENT),
  unsupported_input: kind(400, "invalid_request_error", false, INVALID_ARGUMENT),
  not_found: kind(404, "invalid_request_error", false, NOT_FOUND),
  model_not_found: kind(404, "invalid_request_error", false, NOT_FOUND),
  conflict: kind(409, "invalid_request_error", false, FAILED_PRECONDITION),
  body_too_large: kind(413, "invalid_request_error", false, INVALID_ARGUMENT),
  // Answered by the HTTP server before any route (framework-errors.ts): statuses kept, bodies the table's.
  uri_too_long: kind(414, "invalid_request_error", false, INVALID_ARGUMENT),
  headers_too_large: kind(431, "invalid_request_error", false, INVALID_ARGUMENT),
  request_timeout: kind(408, "invalid_request_error", true, DEADLINE_EXCEEDED),
  // Who is asking, and what they may spend.
  invalid_api_key: kind(401, "authentication_error", false, UNAUTHENTICATED),
  unauthorized: kind(401, "authentication_error", false, UNAUTHENTICATED),
  insufficient_credits: kind(402, "billing_error", false, FAILED_PRECONDITION),
  // The key's own total budget is spent: an operator raises it (docs/keys.md); the project may have money left.
  key_budget_exceeded: kind(402, "billing_error", false, FAILED_PRECONDITION),
  rate_limit_exceeded: kind(429, "rate_limit_error", true, RESOURCE_EXHAUSTED),
  // Too many keys found not valid from one client address: a valid key is admitted again after Retry-After.
  auth_failures_exceeded: kind(429, "rate_limit_error", true, RESOURCE_EXHAUSTED),
  // Retrying helps only after 00:00 UTC: not worth a client's automatic retry.
  spend_cap_exceeded: kind(429, "billing_error", false, RESOURCE_EXHAUSTED),
  // The gateway itself.
  control_plane_unavailable: kind(503, "service_unavailable", true, UNAVAILABLE),
  // A request on a kept-alive connection after the replica began to close: another replica takes it.
  shutting_down: kind(503, "service_unavailable", true, UNAVAILABLE),
  // The replica holds as many model calls as its memory allows (DATA_PLANE_MAX_IN_FLIGHT): another replica, or a retry, takes it.
  overloaded: kind(503, "service_unavailable", true, UNAVAILABLE),
  internal_error: kind(500, "server_error", false, INTERNAL),
  // Never sent: the client is gone (499 is the status recorded in logs and metrics).
  client_closed: kind(499, "invalid_request_error", false, CANCELLED),
  // Upstream providers: the upstream's status is kept and is the wire code.
  upstream_rate_limited: kind(429, "rate_limit_error", true, UNAVAILABLE, "status"),
  upstream_failed: kind(502, "upstream_error", true, UNAVAILABLE, "status"),
  upstream_rejected: kind(400, "upstream_rejected", false, FAILED_PRECONDITION, "status"),
  upstream_unreachable: kind(504, "upstream_error", true, UNAVAILABLE, "status"),
  /** A stream that had started broke: its SSE error event. */
  stream_failed: kind(502, "upstream_error", true, UNAVAILABLE, "status"),
} as const satisfies Record<string, ErrorKind>;

export type ErrorCode = keyof typeof ERROR_TABLE;

export interface ErrorBody {
  /** `param`: the request field at fault, or null; OpenAI's errors always carry it (docs/errors.md). */
  error: { type: string; code: string | number; message: string; param: string | null };
}

/** A failure with a code from the table. `status` may differ from the table's only where the wire code is the status. */
export class GatewayError extends Error {
  readonly status: number;
  readonly type: string;
  readonly retryable: boolean;
  /** The code on the wire: the table's name, or the status for upstream failures. */
  readonly code: string | number;
  readonly headers: Record<string, string>;
  /** The request field the error is about, where the gateway knows it (OpenAI's `param`), else null. */
  readonly param: string | null;

  constructor(
    readonly kind: ErrorCode,
    message: string,
    options: { status?: number; headers?: Record<string, string>; cause?: unknown; param?: string } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    const row: ErrorKind = ERROR_TABLE[kind];
    this.status = row.wireCode === "status" && options.status !== undefined ? options.status : row.status;
    this.type = row.type;
    this.retryable = row.retryable;
    this.code = row.wireCode === "status" ? this.status : kind;
    this.headers = options.headers ?? {};
    this.param = options.param ?? null;
  }

  get grpcStatus(): grpcStatus {
    return ERROR_TABLE[this.kind].grpc;
  }

  toBody(): ErrorBody {
    return { error: { type: this.type, code: this.code, message: this.message, param: this.param } };
  }

  /** The answer's headers: its own (Retry-After) and whether sending it again may help (x-should-retry, which OpenAI's SDKs read). */
  get replyHeaders(): Record<string, string> {
    return { ...this.headers, "x-should-retry": String(this.retryable) };
  }
}

/** gRPC metadata key carrying the table code of a failed call, so the caller can rebuild the error. */
export const ERROR_CODE_METADATA_KEY = "gateway-error-code";

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === "string" && Object.hasOwn(ERROR_TABLE, value);
}
