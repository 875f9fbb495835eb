// A complete Anthropic Message -> an OpenAI `chat.completion` with one choice.
//   text blocks      -> message.content (joined; null when there is no text)
//   tool_use blocks  -> message.tool_calls (input re-serialised as the arguments JSON text)
//   thinking blocks  -> message.reasoning (OpenRouter's field), never content
//   stop_reason      -> finish_reason (map-anthropic-stop-reason.ts); "refusal" also sets message.refusal
// Other blocks (redacted thinking, server tool calls and their results) have
// no OpenAI counterpart and are left out.
import { answerFields, messageFields } from "../openai-answer-fields";
import type { ResponseContext } from "../provider-adapter";
import { convertAnthropicUsage } from "./convert-anthropic-usage";
import { isRecord, nonEmptyString, type JsonObject } from "./json-values";
import { mapAnthropicStopReason } from "./map-anthropic-stop-reason";
import { refusalText } from "./refusal-text";

export function convertAnthropicMessage(json: unknown, context: ResponseContext): JsonObject {
  if (!isRecord(json) || json.type !== "message" || !Array.isArray(json.content)) {
    throw new Error('the Anthropic answer is not a message (expected {"type":"message","content":[...]})');
  }

  const texts: string[] = [];
  const thinking: string[] = [];
  const toolCalls: JsonObject[] = [];
  for (const block of json.content) {
    if (!isRecord(block)) continue;
    if (block.type === "text" && typeof block.text === "string") texts.push(block.text);
    else if (block.type === "thinking" && typeof block.thinking === "string") thinking.push(block.thinking);
    else if (block.type === "tool_use" && typeof block.id === "string" && typeof block.name === "string") {
      toolCalls.push({ id: block.id, type: "function", function: { name: block.name, arguments: JSON.stringify(block.input ?? {}) } });
    }
  }

  const content = texts.join("");
  const message: JsonObject = {
    role: "assistant",
    content: content.length > 0 ? content : null,
    ...messageFields(json.stop_reason === "refusal" ? refusalText(json.stop_details) : null),
  };
  if (toolCalls.length > 0) message.tool_calls = toolCalls;
  const reasoning = thinking.join("");
  if (reasoning.length > 0) message.reasoning = reasoning;

  const model = nonEmptyString(json.model) ?? context.model;
  const completion: JsonObject = {
    // Anthropic's msg_ id is kept: it is what the provider's logs and support know the answer by.
    id: nonEmptyString(json.id) ?? context.id,
    object: "chat.completion",
    created: context.created,
    model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: mapAnthropicStopReason(json.stop_reason) }],
  };
  const usage = convertAnthropicUsage(json.usage);
  if (usage) completion.usage = usage;
  return { ...completion, ...answerFields("anthropic", model) };
}
