// Converse `usage` -> the one usage record (chat-usage.ts).
// Bedrock splits the prompt three ways, as Anthropic does: `inputTokens` EXCLUDES
// the cached tokens, beside `cacheReadInputTokens` and `cacheWriteInputTokens`
// (totalTokens = input + reads + writes + output). The record's inputTokens, like
// OpenAI's `prompt_tokens`, is the whole prompt: the sum of the three. Writes are
// split by lifetime in `cacheDetails` [{ttl: "5m"|"1h", inputTokens}]; writes it
// does not place in the hour are 5-minute writes, the default lifetime. Older
// answers carry only the legacy `cacheReadInputTokenCount` / `cacheWriteInputTokenCount`.
import type { UsageRecord } from "../../billing/pricing";
import { isRecord, tokenCount, usageRecord } from "../chat-usage";

/** Undefined when the usage reports no input count (nothing to bill from). */
export function readConverseUsage(usage: unknown): UsageRecord | undefined {
  if (!isRecord(usage)) return undefined;
  const input = tokenCount(usage.inputTokens);
  if (input === undefined) return undefined;
  const reads = tokenCount(usage.cacheReadInputTokens) ?? tokenCount(usage.cacheReadInputTokenCount) ?? 0;
  const writes = tokenCount(usage.cacheWriteInputTokens) ?? tokenCount(usage.cacheWriteInputTokenCount) ?? 0;
  const hourWrites = Math.min(writes, hourCacheWrites(usage.cacheDetails));
  const cached = reads > 0 || writes > 0 || "cacheReadInputTokens" in usage;
  return usageRecord({
    inputTokens: input + reads + writes,
    cachedInputTokens: cached ? reads : undefined,
    cacheWrite5mTokens: writes - hourWrites > 0 ? writes - hourWrites : undefined,
    cacheWrite1hTokens: hourWrites > 0 ? hourWrites : undefined,
    outputTokens: tokenCount(usage.outputTokens) ?? 0,
  });
}

function hourCacheWrites(details: unknown): number {
  if (!Array.isArray(details)) return 0;
  let hour = 0;
  for (const detail of details) if (isRecord(detail) && detail.ttl === "1h") hour += tokenCount(detail.inputTokens) ?? 0;
  return hour;
}
