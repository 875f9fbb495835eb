// The shared finish_reason -> Anthropic's stop_reason. OpenAI's "stop" does not say whether a stop
// sequence or the model ended the turn: end_turn (stop_sequence stays null). content_filter -> refusal.
const BY_FINISH_REASON: Readonly<Record<string, string>> = {
  stop: "end_turn",
  length: "max_tokens",
  tool_calls: "tool_use",
  function_call: "tool_use",
  content_filter: "refusal",
};

export const anthropicStopReason = (finishReason: unknown): string =>
  typeof finishReason === "string" && Object.hasOwn(BY_FINISH_REASON, finishReason) ? BY_FINISH_REASON[finishReason]! : "end_turn";

/** An Anthropic message id for a translated answer: msg_ and the gateway's request id. */
export const messageId = (requestId: string): string => `msg_${requestId.replaceAll("-", "")}`;
