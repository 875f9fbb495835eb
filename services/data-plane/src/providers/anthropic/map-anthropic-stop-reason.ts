// Anthropic `stop_reason` -> OpenAI `finish_reason`.
//   end_turn, stop_sequence          -> stop
//   max_tokens,
//   model_context_window_exceeded    -> length (output cut by a limit)
//   tool_use                         -> tool_calls
//   refusal                          -> content_filter (Anthropic's classifiers stopped the answer)
//   pause_turn                       -> stop: a server tool paused a long turn; the answer so far is
//                                       complete as text, and OpenAI has no "resume" reason.
// An unknown or missing reason maps to stop: the answer did end, and OpenAI
// clients expect one of their own values on the final chunk.
export type OpenAiFinishReason = "stop" | "length" | "tool_calls" | "content_filter";

const BY_STOP_REASON: Record<string, OpenAiFinishReason> = {
  end_turn: "stop",
  stop_sequence: "stop",
  pause_turn: "stop",
  max_tokens: "length",
  model_context_window_exceeded: "length",
  tool_use: "tool_calls",
  refusal: "content_filter",
};

export function mapAnthropicStopReason(stopReason: unknown): OpenAiFinishReason {
  return typeof stopReason === "string" && Object.hasOwn(BY_STOP_REASON, stopReason) ? BY_STOP_REASON[stopReason]! : "stop";
}
