// Gemini `Candidate.FinishReason` as an OpenAI finish_reason.

/** Reasons that mean the answer was stopped or withheld by a filter (safety, recitation, blocklists, personal data). */
const FILTERED = new Set([
  "SAFETY",
  "RECITATION",
  "BLOCKLIST",
  "PROHIBITED_CONTENT",
  "SPII",
  "IMAGE_SAFETY",
  "IMAGE_PROHIBITED_CONTENT",
  "IMAGE_RECITATION",
]);

/**
 * MAX_TOKENS -> length; filters -> content_filter; anything else (STOP, OTHER,
 * LANGUAGE, MALFORMED_FUNCTION_CALL, ...) -> stop, or tool_calls when the
 * answer holds function calls: Gemini ends a tool-calling turn with STOP, and
 * OpenAI clients run tools on "tool_calls".
 */
export function mapFinishReason(reason: unknown, hasToolCalls: boolean): "stop" | "length" | "content_filter" | "tool_calls" {
  if (reason === "MAX_TOKENS") return "length";
  if (typeof reason === "string" && FILTERED.has(reason)) return "content_filter";
  return hasToolCalls ? "tool_calls" : "stop";
}
