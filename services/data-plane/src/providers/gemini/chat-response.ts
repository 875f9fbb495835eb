// A Gemini GenerateContentResponse as an OpenAI `chat.completion`.
import { answerFields, messageFields } from "../openai-answer-fields";
import type { ResponseContext } from "../provider-adapter";
import { answerIds, imageEntry, readCandidateParts } from "./candidate-output";
import { mapFinishReason } from "./finish-reason";
import { openAiUsage } from "./usage";
import { isObject, type JsonObject } from "./wire-types";

export function chatCompletion(json: unknown, context: ResponseContext): JsonObject {
  if (!isObject(json) || json.error !== undefined) throw new Error("gemini: the body is not a GenerateContentResponse");
  const { id, callIdBase } = answerIds(json, context.id);
  const candidates = Array.isArray(json.candidates) ? json.candidates.filter(isObject) : [];
  const choices = candidates.map((candidate, position) => {
    const output = readCandidateParts(candidate.content, callIdBase);
    const message: JsonObject = { role: "assistant", content: output.content, ...messageFields(null) };
    if (output.reasoning !== null) message.reasoning = output.reasoning; // OpenRouter's field for thinking text
    if (output.toolCalls.length > 0) {
      message.tool_calls = output.toolCalls.map((call) => ({
        id: call.id,
        type: "function",
        function: { name: call.name, arguments: call.arguments },
      }));
    }
    if (output.images.length > 0) message.images = output.images.map(imageEntry);
    return {
      index: typeof candidate.index === "number" ? candidate.index : position,
      message,
      finish_reason: mapFinishReason(candidate.finishReason, output.toolCalls.length > 0),
      logprobs: null,
    };
  });
  if (choices.length === 0) {
    // A blocked prompt gets no candidates, only `promptFeedback.blockReason`:
    // OpenAI's way to say so is an empty answer stopped by the content filter.
    if (!isObject(json.promptFeedback) || typeof json.promptFeedback.blockReason !== "string") {
      throw new Error("gemini: the answer has neither candidates nor a prompt block reason");
    }
    choices.push({
      index: 0,
      message: { role: "assistant", content: null, ...messageFields(null) },
      finish_reason: "content_filter",
      logprobs: null,
    });
  }
  const model = typeof json.modelVersion === "string" && json.modelVersion !== "" ? json.modelVersion : context.model;
  const completion: JsonObject = { id, object: "chat.completion", created: context.created, model, choices };
  const usage = openAiUsage(json.usageMetadata);
  if (usage) completion.usage = usage;
  return { ...completion, ...answerFields("gemini", model) };
}
