// The reasoning text of a shared-representation message or delta, for the
// dialects that write it back as their own reasoning (Responses summaries,
// Anthropic thinking blocks).

/** `reasoning` (OpenRouter-style upstreams and the gateway's own translations) or `reasoning_content` (others); "" when none. */
export function reasoningText(messageOrDelta: { reasoning?: unknown; reasoning_content?: unknown }): string {
  if (typeof messageOrDelta.reasoning === "string" && messageOrDelta.reasoning.length > 0) return messageOrDelta.reasoning;
  return typeof messageOrDelta.reasoning_content === "string" ? messageOrDelta.reasoning_content : "";
}
