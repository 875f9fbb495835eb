// Gemini `usageMetadata` as OpenAI usage (provider-adapter.ts: prompt_tokens is
// all input, completion_tokens all output, reasoning and image tokens included).
import { isObject, type JsonObject } from "./wire-types";

const count = (value: unknown): number => (typeof value === "number" && Number.isFinite(value) && value > 0 ? value : 0);

/**
 * prompt_tokens = promptTokenCount (cached content included)
 * + toolUsePromptTokenCount (input Gemini adds for its built-in tools; none are
 * enabled by this adapter, but it is billed as input when present);
 * completion_tokens = candidatesTokenCount + thoughtsTokenCount (Gemini counts
 * thoughts apart from the candidates, OpenAI inside completion tokens). The
 * total is their sum, which equals Gemini's totalTokenCount in the recorded
 * answers (services/mock-provider/fixtures).
 * Undefined when the upstream sent no usage.
 */
export function openAiUsage(metadata: unknown): JsonObject | undefined {
  if (!isObject(metadata)) return undefined;
  const prompt = count(metadata.promptTokenCount) + count(metadata.toolUsePromptTokenCount);
  const thoughts = count(metadata.thoughtsTokenCount);
  const completion = count(metadata.candidatesTokenCount) + thoughts;
  const usage: JsonObject = { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
  if (metadata.cachedContentTokenCount !== undefined)
    usage.prompt_tokens_details = { cached_tokens: count(metadata.cachedContentTokenCount) };
  const completionDetails: JsonObject = {};
  if (metadata.thoughtsTokenCount !== undefined) completionDetails.reasoning_tokens = thoughts;
  // Image output is priced apart from text (OpenRouter reports it the same way).
  const imageTokens = modalityCount(metadata.candidatesTokensDetails, "IMAGE");
  if (imageTokens !== undefined) completionDetails.image_tokens = imageTokens;
  if (Object.keys(completionDetails).length > 0) usage.completion_tokens_details = completionDetails;
  return usage;
}

/** The token count of one modality in a `ModalityTokenCount` list, when listed. */
function modalityCount(details: unknown, modality: string): number | undefined {
  if (!Array.isArray(details)) return undefined;
  const entry = details.find((item): item is JsonObject => isObject(item) && item.modality === modality);
  return entry ? count(entry.tokenCount) : undefined;
}
