// Recognises a few kinds of upstream refusal from an OpenAI-format error body's
// structured `code` (or `type`), never from its message text, so the gateway's
// own message can name the category; the provider's own text is never relayed
// (docs/errors.md).
import type { UpstreamErrorCategory } from "../../errors";

const BY_CODE: Record<string, UpstreamErrorCategory> = {
  context_length_exceeded: "context_window_exceeded",
  string_above_max_length: "context_window_exceeded",
  content_policy_violation: "content_policy",
  content_filter: "content_policy",
  unsupported_parameter: "unsupported_parameter",
  unsupported_value: "unsupported_parameter",
  invalid_image: "invalid_image",
  invalid_image_url: "invalid_image",
  image_parse_error: "invalid_image",
  model_not_found: "model_not_found",
};

export function classifyUpstreamError(body: unknown): UpstreamErrorCategory | undefined {
  const error = (body as { error?: { code?: unknown; type?: unknown } } | null)?.error;
  for (const field of [error?.code, error?.type]) {
    if (typeof field === "string" && Object.hasOwn(BY_CODE, field)) return BY_CODE[field];
  }
  return undefined;
}
