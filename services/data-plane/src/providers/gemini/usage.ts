// Gemini `usageMetadata` -> the one usage record (chat-usage.ts), and from it
// the OpenAI usage of the translated answer (provider-adapter.ts: prompt_tokens
// is all input, completion_tokens all output, reasoning and image tokens included).
import type { UsageRecord } from "../../billing/pricing";
import { chatUsage, tokenCount, usageRecord } from "../chat-usage";
import { isObject, type JsonObject } from "./wire-types";

/**
 * Input = promptTokenCount (cached content included) + toolUsePromptTokenCount
 * (input Gemini adds for its built-in tools; none are enabled by this adapter,
 * but it is billed as input when present), with cachedContentTokenCount the
 * cached part. Output = candidatesTokenCount + thoughtsTokenCount (Gemini counts
 * thoughts apart from the candidates, OpenAI inside completion tokens), with
 * the thoughts as reasoning. Audio and image tokens by modality: image, the
 * prompt's less those of the cached content (`cacheTokensDetails`), since a
 * token is billed once, cached first; audio, all of the prompt's, cached or
 * not, and the cached audio out of the cached part: the catalogue has no rate
 * for cached audio, and the text cache rate is below Gemini's ($0.03 against
 * $0.10 on 2.5 Flash), the audio input rate above it. The candidates' as
 * listed. The total is their sum, which equals Gemini's totalTokenCount in the
 * recorded answers.
 * Undefined when the upstream sent no usage.
 */
export function readGeminiUsage(metadata: unknown): UsageRecord | undefined {
  if (!isObject(metadata)) return undefined;
  const thoughts = tokenCount(metadata.thoughtsTokenCount);
  const uncached = (modality: string): number | undefined => {
    const prompt = modalityCount(metadata.promptTokensDetails, modality);
    return prompt === undefined ? undefined : Math.max(0, prompt - (modalityCount(metadata.cacheTokensDetails, modality) ?? 0));
  };
  const cached = tokenCount(metadata.cachedContentTokenCount);
  const cachedAudio = modalityCount(metadata.cacheTokensDetails, "AUDIO") ?? 0;
  return usageRecord({
    inputTokens: (tokenCount(metadata.promptTokenCount) ?? 0) + (tokenCount(metadata.toolUsePromptTokenCount) ?? 0),
    cachedInputTokens: cached === undefined ? undefined : Math.max(0, cached - cachedAudio),
    audioInputTokens: modalityCount(metadata.promptTokensDetails, "AUDIO"),
    imageInputTokens: uncached("IMAGE"),
    outputTokens: (tokenCount(metadata.candidatesTokenCount) ?? 0) + (thoughts ?? 0),
    reasoningTokens: thoughts,
    audioOutputTokens: modalityCount(metadata.candidatesTokensDetails, "AUDIO"),
    imageOutputTokens: modalityCount(metadata.candidatesTokensDetails, "IMAGE"),
  });
}

/** Gemini usage as OpenAI usage (chatUsage of its record); undefined when the upstream sent none. */
export function openAiUsage(metadata: unknown): JsonObject | undefined {
  const record = readGeminiUsage(metadata);
  return record && chatUsage(record);
}

/** The token count of one modality in a `ModalityTokenCount` list, when listed. */
function modalityCount(details: unknown, modality: string): number | undefined {
  if (!Array.isArray(details)) return undefined;
  const entry = details.find((item): item is JsonObject => isObject(item) && item.modality === modality);
  return entry ? (tokenCount(entry.tokenCount) ?? 0) : undefined;
}
