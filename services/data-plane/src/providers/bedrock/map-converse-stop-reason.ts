// Converse `stopReason` -> OpenAI `finish_reason`.
//   end_turn, stop_sequence                -> stop
//   max_tokens, model_context_window_exceeded -> length (output cut by a limit)
//   tool_use                               -> tool_calls
//   guardrail_intervened, content_filtered -> content_filter
//   malformed_model_output, malformed_tool_use, unknown -> stop (the answer did end)
import type { OpenAiFinishReason } from "../anthropic/map-anthropic-stop-reason";

const BY_STOP_REASON: Record<string, OpenAiFinishReason> = {
  end_turn: "stop",
  stop_sequence: "stop",
  max_tokens: "length",
  model_context_window_exceeded: "length",
  tool_use: "tool_calls",
  guardrail_intervened: "content_filter",
  content_filtered: "content_filter",
};

export function mapConverseStopReason(stopReason: unknown): OpenAiFinishReason {
  return typeof stopReason === "string" && Object.hasOwn(BY_STOP_REASON, stopReason) ? BY_STOP_REASON[stopReason]! : "stop";
}
