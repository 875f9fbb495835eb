// Converse and ConverseStream: the recorded answer chosen by request shape (a tool
// call when the request offers tools and does not hand results back), usage rewritten
// in Bedrock's fields when scripted, keys sorted at every depth as Bedrock sends them.
// The text stream is the recorded one; the tool-call stream (no Claude one was recorded)
// is the recorded tool-call answer streamed as ConverseStream streams tools.
import { isRecord, type Json } from "../json";
import { cacheWrites, type TokenCounts } from "../usage";
import { type BedrockEvent, padded, sortedKeys } from "./bedrock-event-stream";
import type { BedrockFixtures } from "./bedrock-fixtures";

export type ConverseKind = "plain" | "tools";

function endsWithToolResult(messages: unknown[]): boolean {
  const last = messages[messages.length - 1];
  return isRecord(last) && Array.isArray(last.content) && last.content.some((block) => isRecord(block) && isRecord(block.toolResult));
}

export function chooseConverseKind(body: Json): ConverseKind {
  const messages = Array.isArray(body.messages) ? body.messages : [];
  if (endsWithToolResult(messages)) return "plain";
  const tools = isRecord(body.toolConfig) ? body.toolConfig.tools : undefined;
  return Array.isArray(tools) && tools.length > 0 ? "tools" : "plain";
}

/** What Converse refuses in a body (ValidationException's message), undefined when servable. */
export function invalidConverseBody(body: unknown): string | undefined {
  if (!isRecord(body)) return "Malformed input request, please reformat your input and try again.";
  if (!Array.isArray(body.messages) || body.messages.length === 0) {
    return "1 validation error detected: Value at 'messages' failed to satisfy constraint: Member must not be null or empty";
  }
  const empty = body.messages.findIndex((message) => !isRecord(message) || !Array.isArray(message.content) || message.content.length === 0);
  if (empty !== -1) {
    return `The content field in the Message object at messages.${empty} is empty. Add a ContentBlock object to the content field and try again.`;
  }
  return undefined;
}

/**
 * Usage in Bedrock's meaning: `inputTokens` excludes cache reads and writes, which are
 * `cacheReadInputTokens` / `cacheWriteInputTokens` (both lifetimes) with their legacy
 * `...TokenCount` twins; `cacheDetails` (1h first) when 1-hour writes are scripted;
 * `totalTokens` = input + output + reads + writes. Unscripted figures stay as recorded.
 */
export function converseUsage(recorded: unknown, counts: TokenCounts | undefined): Json {
  const base = isRecord(recorded) ? recorded : {};
  if (!counts) return base;
  const usage: Json = { ...base, inputTokens: counts.prompt_tokens, outputTokens: counts.completion_tokens };
  if (counts.cached_tokens !== undefined) {
    usage.cacheReadInputTokens = counts.cached_tokens;
    usage.cacheReadInputTokenCount = counts.cached_tokens;
  }
  const writes = cacheWrites(counts);
  if (writes !== undefined) {
    usage.cacheWriteInputTokens = writes;
    usage.cacheWriteInputTokenCount = writes;
  }
  if (counts.cache_creation_1h_tokens !== undefined) {
    usage.cacheDetails = [
      { inputTokens: counts.cache_creation_1h_tokens, ttl: "1h" },
      { inputTokens: counts.cache_creation_tokens ?? 0, ttl: "5m" },
    ];
  }
  const count = (key: string) => (typeof usage[key] === "number" ? (usage[key] as number) : 0);
  usage.totalTokens = count("inputTokens") + count("outputTokens") + count("cacheReadInputTokens") + count("cacheWriteInputTokens");
  return sortedKeys(usage);
}

const withTier = (object: Json, counts: TokenCounts | undefined): Json =>
  counts?.service_tier === undefined ? object : { ...object, serviceTier: { type: counts.service_tier } };

/** A Converse answer: the recording with usage (and the tier) as scripted. */
export function converseResponse(recorded: Json, counts: TokenCounts | undefined): Json {
  return sortedKeys(withTier({ ...recorded, usage: converseUsage(recorded.usage, counts) }, counts));
}

/** The text stream's metadata with the scripted usage; a rewritten payload gets a fresh `p`. */
function withStreamUsage(event: BedrockEvent, counts: TokenCounts | undefined): BedrockEvent {
  if (event.type !== "metadata" || !counts) return event;
  const { p: _p, ...payload } = event.payload;
  return { type: "metadata", payload: padded(withTier({ ...payload, usage: converseUsage(payload.usage, counts) }, counts)) };
}

/** Halves of a tool call's input JSON: the arguments arrive as string fragments. */
function fragments(input: unknown): string[] {
  const text = JSON.stringify(input ?? {});
  const cut = Math.ceil(text.length / 2);
  return text.length < 2 ? [text] : [text.slice(0, cut), text.slice(cut)];
}

/**
 * A Converse answer as ConverseStream sends it: messageStart, per block (a text block has
 * no contentBlockStart; a tool call starts with its id and name, its input in fragments)
 * the deltas and contentBlockStop, messageStop, and metadata (usage, metrics) last.
 */
export function streamOf(answer: Json): BedrockEvent[] {
  const output = isRecord(answer.output) && isRecord(answer.output.message) ? answer.output.message : {};
  const events: BedrockEvent[] = [{ type: "messageStart", payload: { role: output.role ?? "assistant" } }];
  const blocks = Array.isArray(output.content) ? output.content : [];
  blocks.forEach((block, contentBlockIndex) => {
    if (!isRecord(block)) return;
    if (typeof block.text === "string") {
      events.push({ type: "contentBlockDelta", payload: { contentBlockIndex, delta: { text: block.text } } });
    } else if (isRecord(block.toolUse)) {
      const { toolUseId, name, input } = block.toolUse;
      events.push({ type: "contentBlockStart", payload: { contentBlockIndex, start: { toolUse: { name, toolUseId } } } });
      for (const part of fragments(input))
        events.push({ type: "contentBlockDelta", payload: { contentBlockIndex, delta: { toolUse: { input: part } } } });
    }
    events.push({ type: "contentBlockStop", payload: { contentBlockIndex } });
  });
  const stop: Json = { stopReason: answer.stopReason };
  if (isRecord(answer.additionalModelResponseFields)) stop.additionalModelResponseFields = { delta: answer.additionalModelResponseFields };
  events.push({ type: "messageStop", payload: stop });
  const metadata: Json = { metrics: answer.metrics, usage: answer.usage };
  if (answer.serviceTier !== undefined) metadata.serviceTier = answer.serviceTier;
  events.push({ type: "metadata", payload: metadata });
  return events.map((event) => ({ type: event.type, payload: padded(event.payload) }));
}

export function converseStreamEvents(fixtures: BedrockFixtures, kind: ConverseKind, counts: TokenCounts | undefined): BedrockEvent[] {
  if (kind === "tools") return streamOf(converseResponse(fixtures.converse.tools, counts));
  return fixtures.converse.stream.map((event) => withStreamUsage(event, counts));
}
