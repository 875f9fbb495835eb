// Recognises the gateway's error categories in a Google API error envelope,
// `{"error":{"code","message","status","details":[{"@type",...}]}}`, from its
// structured fields only, never its message (docs/errors.md).
//
// What the structured fields can tell:
// - status NOT_FOUND -> model_not_found. The only resource a generateContent or
//   embed call names is the model in its path (this adapter sends no cached
//   contents; a missing uploaded file is refused as PERMISSION_DENIED), so a
//   404 means the model id is unknown or lacks the method
//   (services/mock-provider/fixtures/gemini.error.404.not_found.json).
// What they cannot tell, so no category is given:
// - an over-long prompt, an unsupported parameter and an unreadable image are
//   all INVALID_ARGUMENT with no ErrorInfo reason; only the message text differs.
// - API_KEY_INVALID (ErrorInfo reason, HTTP 400), PERMISSION_DENIED and
//   RESOURCE_EXHAUSTED (429) are about the gateway's credential or quota, which
//   the HTTP status already says; none is one of the caller-facing categories.
// - Content policy is never an error: Gemini answers 200 with a blocked prompt
//   or a SAFETY finish reason, translated to finish_reason "content_filter".
import type { UpstreamErrorCategory } from "../../errors";
import { isObject } from "./wire-types";

const BY_STATUS: Record<string, UpstreamErrorCategory> = {
  NOT_FOUND: "model_not_found",
};

export function classifyGeminiError(body: unknown): UpstreamErrorCategory | undefined {
  // Some Google endpoints wrap the envelope in a one-element array (the non-SSE stream form).
  const envelope = Array.isArray(body) ? body[0] : body;
  const error = isObject(envelope) ? envelope.error : undefined;
  if (!isObject(error)) return undefined;
  return typeof error.status === "string" && Object.hasOwn(BY_STATUS, error.status) ? BY_STATUS[error.status] : undefined;
}
