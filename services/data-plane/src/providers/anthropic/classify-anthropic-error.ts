// Recognises the categories of an Anthropic error body
// `{"type":"error","error":{"type","message"},"request_id"}` (HTTP error
// bodies and in-stream `event: error` data alike) from `error.type` only.
// The message text is never read, nor relayed (docs/errors.md).
//
// Anthropic's error types name HTTP classes, not causes, so few map:
//   not_found_error       -> model_not_found. The adapter only ever calls
//                            POST /messages and sends no other resource id
//                            (images go inline or as public URLs), so the one
//                            thing there that can be missing is the model.
//   invalid_request_error -> none: it covers a too-long prompt, a bad image,
//                            an unsupported parameter and malformed input
//                            alike, told apart only by the message text.
//   request_too_large     -> none: the 32 MB body limit (HTTP 413, answered by
//                            Cloudflare), not the model's context window.
//   authentication_error, permission_error, billing_error, rate_limit_error,
//   api_error, overloaded_error, timeout_error -> none: the HTTP status
//                            already says all the gateway acts on.
import type { UpstreamErrorCategory } from "../../errors";
import { isRecord } from "./json-values";

const BY_ERROR_TYPE: Record<string, UpstreamErrorCategory> = {
  not_found_error: "model_not_found",
};

export function classifyAnthropicError(body: unknown): UpstreamErrorCategory | undefined {
  const error = isRecord(body) ? body.error : undefined;
  const type = isRecord(error) ? error.type : undefined;
  return typeof type === "string" && Object.hasOwn(BY_ERROR_TYPE, type) ? BY_ERROR_TYPE[type] : undefined;
}
