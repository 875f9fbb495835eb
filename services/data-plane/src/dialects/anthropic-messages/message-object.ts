// A whole answer as an Anthropic `message`. A native answer is the upstream's
// own body with `usage.cost` added (and the cumulative cache fields it may
// lack); a translated one is built from the shared chat.completion:
//   message.reasoning / reasoning_content -> a thinking block (no signature: none exists to give)
//   message.content, message.refusal      -> a text block each; a refusal makes stop_reason "refusal"
//   message.tool_calls                    -> tool_use blocks, arguments parsed into `input`
//   finish_reason                         -> stop_reason (stop-reason.ts)
import { toolInput } from "../../providers/anthropic/convert-to-anthropic-messages";
import type { AnswerContext } from "../client-dialect";
import { reasoningText } from "../reasoning-text";
import { isRecord, type JsonObject } from "./json-fields";
import { anthropicStopReason, messageId } from "./stop-reason";
import { anthropicUsage, CUMULATIVE_COUNTS } from "./usage";

export function nativeMessage(answer: JsonObject, context: AnswerContext): JsonObject {
  answer.usage = completedUsage(answer.usage, context);
  return answer;
}

/**
 * An upstream's own usage, fields and order kept, with the cumulative counts it left out and `cost`
 * added; nothing else (not the cache_creation split) is added to a pass-through's usage.
 */
export function completedUsage(upstream: unknown, context: AnswerContext): JsonObject {
  const computed = anthropicUsage(context.tokens, context.debitedNano);
  const usage: JsonObject = isRecord(upstream) ? { ...upstream } : {};
  for (const key of CUMULATIVE_COUNTS) if (usage[key] === undefined || usage[key] === null) usage[key] = computed[key];
  usage.cost = computed.cost;
  return usage;
}

export function translatedMessage(completion: JsonObject, context: AnswerContext): JsonObject {
  const choice = Array.isArray(completion.choices) && isRecord(completion.choices[0]) ? completion.choices[0] : {};
  const message = isRecord(choice.message) ? choice.message : {};
  const content: JsonObject[] = [];
  const reasoning = reasoningText(message);
  if (reasoning) content.push({ type: "thinking", thinking: reasoning, signature: "" });
  if (typeof message.content === "string" && message.content.length > 0) content.push({ type: "text", text: message.content });
  const refused = typeof message.refusal === "string" && message.refusal.length > 0;
  if (refused) content.push({ type: "text", text: message.refusal });
  if (Array.isArray(message.tool_calls)) {
    for (const call of message.tool_calls) {
      if (!isRecord(call) || !isRecord(call.function)) continue;
      content.push({ type: "tool_use", id: call.id, name: call.function.name, input: toolInput(call.function.arguments) });
    }
  }
  return {
    id: messageId(context.requestId),
    type: "message",
    role: "assistant",
    model: typeof completion.model === "string" ? completion.model : context.upstreamModel,
    content,
    stop_reason: refused ? "refusal" : anthropicStopReason(choice.finish_reason),
    stop_sequence: null,
    usage: anthropicUsage(context.tokens, context.debitedNano),
  };
}

/** OpenRouter's `reasoning`, or DeepSeek-style `reasoning_content`. */
