// A Converse answer -> an OpenAI `chat.completion` with one choice.
//   text blocks              -> message.content (joined; null without text)
//   toolUse blocks           -> message.tool_calls (input re-serialised as the arguments JSON text)
//   reasoningContent blocks  -> message.reasoning (OpenRouter's field), never content
//   stopReason               -> finish_reason (map-converse-stop-reason.ts)
// Converse answers carry no id and no model: the gateway's own id and the upstream model id stand in.
import { chatUsage, isRecord, type JsonObject } from "../chat-usage";
import { answerFields, messageFields } from "../openai-answer-fields";
import type { ResponseContext } from "../provider-adapter";
import { readConverseUsage } from "./converse-usage";
import { mapConverseStopReason } from "./map-converse-stop-reason";

export function convertConverseResponse(json: unknown, context: ResponseContext): JsonObject {
  const output = isRecord(json) && isRecord(json.output) ? json.output : undefined;
  const content = output && isRecord(output.message) ? output.message.content : undefined;
  if (!Array.isArray(content)) throw new Error("the Converse answer has no output.message.content");

  const texts: string[] = [];
  const reasoning: string[] = [];
  const toolCalls: JsonObject[] = [];
  for (const block of content) {
    if (!isRecord(block)) continue;
    if (typeof block.text === "string") texts.push(block.text);
    else if (isRecord(block.toolUse) && typeof block.toolUse.toolUseId === "string" && typeof block.toolUse.name === "string") {
      const { toolUseId, name, input } = block.toolUse;
      toolCalls.push({ id: toolUseId, type: "function", function: { name, arguments: JSON.stringify(input ?? {}) } });
    } else if (isRecord(block.reasoningContent) && isRecord(block.reasoningContent.reasoningText)) {
      const text = block.reasoningContent.reasoningText.text;
      if (typeof text === "string") reasoning.push(text);
    }
  }

  const text = texts.join("");
  const message: JsonObject = { role: "assistant", content: text.length > 0 ? text : null, ...messageFields(null) };
  if (toolCalls.length > 0) message.tool_calls = toolCalls;
  if (reasoning.length > 0) message.reasoning = reasoning.join("");

  const completion: JsonObject = {
    id: context.id,
    object: "chat.completion",
    created: context.created,
    model: context.model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: mapConverseStopReason((json as JsonObject).stopReason) }],
  };
  const usage = readConverseUsage((json as JsonObject).usage);
  if (usage) completion.usage = chatUsage(usage);
  return { ...completion, ...answerFields("bedrock", context.model) };
}

/** A whole Converse answer's usage. */
export const readConverseAnswerUsage = (json: unknown) => readConverseUsage(isRecord(json) ? json.usage : undefined);
