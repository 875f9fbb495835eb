// Errors in the Anthropic Messages dialect: {"type":"error","error":{"type",
// "message","code"}} as a JSON body, or as one `event: error` SSE frame. The
// status is the gateway's own (the one error table); Anthropic's SDKs pick
// their error class by status, and `error.type` is the name Anthropic gives
// that status. `code` (the table's code, or the upstream's status) is an
// extra field Anthropic's SDKs keep in `error.error` without reading it.
import type { GatewayError } from "@gateway/proto";
import { namedFrame } from "../sse-frames";

/** Anthropic's error type for each status the gateway answers with (docs/dialects/anthropic-messages.md). */
const TYPE_BY_STATUS: Readonly<Record<number, string>> = {
  400: "invalid_request_error",
  401: "authentication_error",
  402: "billing_error",
  403: "permission_error",
  404: "not_found_error",
  413: "request_too_large",
  // The per-minute limit, the daily spend cap and an upstream's 429 alike: Anthropic's SDK makes every
  // 429 a RateLimitError; the cap's `x-should-retry: false` keeps the SDK from retrying it.
  429: "rate_limit_error",
  500: "api_error",
  503: "overloaded_error",
  529: "overloaded_error",
  504: "timeout_error",
};

export function anthropicErrorType(status: number): string {
  return TYPE_BY_STATUS[status] ?? (status >= 500 ? "api_error" : "invalid_request_error");
}

export interface AnthropicErrorBody extends Record<string, unknown> {
  type: "error";
  error: { type: string; message: string; code: string | number };
}

export const anthropicErrorBody = (error: GatewayError): AnthropicErrorBody => ({
  type: "error",
  error: { type: anthropicErrorType(error.status), message: error.message, code: error.code },
});

export const anthropicErrorFrame = (error: GatewayError): string => namedFrame("error", anthropicErrorBody(error));

/** One SSE event as Anthropic frames it: `event: <name>\ndata: <json>\n\n`. */
