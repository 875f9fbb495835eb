// Anthropic Messages: pick the recorded answer by request shape, then rewrite
// only what must differ per request (id, model, and usage when scripted).
import type { AnthropicKind } from "./anthropic-fixtures";
import { anthropicFrame, reserialize } from "./anthropic-sse";
import type { AnthropicEvent } from "./anthropic-sse";
import { insertAfter, isRecord, type Json } from "./json";
import { cacheWrites, type TokenCounts } from "./usage";

export interface MessageIdentity {
  id: string;
  model: string;
}

/** True when the conversation's last turn hands tool results back: the model answers in text then. */
function endsWithToolResult(messages: unknown): boolean {
  if (!Array.isArray(messages)) return false;
  const last: unknown = messages[messages.length - 1];
  return isRecord(last) && Array.isArray(last.content) && last.content.some((block) => isRecord(block) && block.type === "tool_result");
}

/** `output_config.format` (structured outputs), or the older beta `output_format`. */
function outputFormat(body: Json): unknown {
  return isRecord(body.output_config) && body.output_config.format !== undefined ? body.output_config.format : body.output_format;
}

export function chooseAnthropicKind(body: Json): AnthropicKind {
  if (endsWithToolResult(body.messages)) return "plain";
  if (Array.isArray(body.tools) && body.tools.length > 0) return "tools";
  const format = outputFormat(body);
  if (isRecord(format) && format.type === "json_schema") return "json_schema";
  return "plain";
}

function withTokens(recorded: unknown, input: number, output: number): Json {
  return { ...(isRecord(recorded) ? recorded : {}), input_tokens: input, output_tokens: output };
}

/**
 * Scripted cache figures on a full usage object (a Message's, message_start's):
 * `cache_read_input_tokens` = cached, `cache_creation_input_tokens` = the writes of
 * both lifetimes, and `cache_creation` = {ephemeral_5m_input_tokens: 5-minute writes,
 * ephemeral_1h_input_tokens: 1-hour writes} (5m + 1h = creation), as in
 * anthropic.messages.cache_read/cache_write.response.json. A recording without the
 * two counters (the SDK's stream fixtures) gets them right after `input_tokens`, and
 * the split after them only when 1-hour writes are scripted (without it every write
 * reads as a 5-minute one), as there.
 */
function withCache(usage: Json, counts: TokenCounts): Json {
  const { cached_tokens: read, cache_creation_tokens: fiveMinutes, cache_creation_1h_tokens: hour } = counts;
  const creation = cacheWrites(counts);
  if (read === undefined && creation === undefined) return usage;
  let out = insertAfter(usage, "input_tokens", {
    cache_creation_input_tokens: usage.cache_creation_input_tokens ?? 0,
    cache_read_input_tokens: usage.cache_read_input_tokens ?? 0,
  });
  if (read !== undefined) out.cache_read_input_tokens = read;
  if (creation !== undefined) {
    out.cache_creation_input_tokens = creation;
    if (isRecord(out.cache_creation) || hour !== undefined) {
      const split = { ...(isRecord(out.cache_creation) ? out.cache_creation : {}) };
      split.ephemeral_5m_input_tokens = fiveMinutes ?? 0;
      split.ephemeral_1h_input_tokens = hour ?? 0;
      out = insertAfter(out, "cache_read_input_tokens", { cache_creation: split });
    }
  }
  return out;
}

/** message_delta's usage: the cache counters only where the recording repeats them. */
function repeatedCache(usage: Json, counts: TokenCounts): Json {
  const out = { ...usage };
  const creation = cacheWrites(counts);
  if (counts.cached_tokens !== undefined && "cache_read_input_tokens" in usage) out.cache_read_input_tokens = counts.cached_tokens;
  if (creation !== undefined && "cache_creation_input_tokens" in usage) out.cache_creation_input_tokens = creation;
  return out;
}

/** The tier served in `usage.service_tier`: where recorded, else after `output_tokens`, where the API puts it. */
function withServiceTier(usage: Json, counts: TokenCounts): Json {
  return counts.service_tier === undefined ? usage : insertAfter(usage, "output_tokens", { service_tier: counts.service_tier });
}

/**
 * Web searches in `server_tool_use.web_search_requests` (the other server-tool counts kept where recorded),
 * after `output_tokens` as in the recorded message_delta of anthropic.messages.stream.cache.sse.
 */
function withWebSearches(usage: Json, counts: TokenCounts): Json {
  if (counts.web_search_requests === undefined) return usage;
  const tools = { ...(isRecord(usage.server_tool_use) ? usage.server_tool_use : {}), web_search_requests: counts.web_search_requests };
  return insertAfter(usage, "output_tokens", { server_tool_use: tools });
}

/** A non-stream Message: the recording with id/model (and usage when scripted) replaced, key order kept. */
export function messageResponse(recorded: Json, identity: MessageIdentity, usage: TokenCounts | undefined): Json {
  const response: Json = { ...recorded, id: identity.id, model: identity.model };
  if (usage) {
    const counted = withCache(withTokens(recorded.usage, usage.prompt_tokens, usage.completion_tokens), usage);
    response.usage = withWebSearches(withServiceTier(counted, usage), usage);
  }
  return response;
}

/**
 * message_start carries the id, the model and the initial usage (output as
 * recorded, at most the scripted total; scripted cache figures and tier);
 * message_delta the final output count (and the input and cache counts again,
 * when the recording repeats them there) and the web searches.
 */
function rewriteEvent(event: AnthropicEvent, identity: MessageIdentity, usage: TokenCounts | undefined): AnthropicEvent {
  if (event.event === "message_start") {
    const payload = JSON.parse(event.data) as Json;
    const message: Json = { ...(payload.message as Json), id: identity.id, model: identity.model };
    if (usage && isRecord(message.usage)) {
      const recordedOutput = typeof message.usage.output_tokens === "number" ? message.usage.output_tokens : 0;
      const counted = withCache(withTokens(message.usage, usage.prompt_tokens, Math.min(recordedOutput, usage.completion_tokens)), usage);
      message.usage = withServiceTier(counted, usage);
    }
    return { event: event.event, data: reserialize(event.data, { ...payload, message }) };
  }
  if (event.event === "message_delta" && usage) {
    const payload = JSON.parse(event.data) as Json;
    const recorded = isRecord(payload.usage) ? payload.usage : {};
    const rewritten: Json = { ...recorded, output_tokens: usage.completion_tokens };
    if ("input_tokens" in recorded) rewritten.input_tokens = usage.prompt_tokens;
    // The searches are counted when the answer ends: in message_delta's cumulative usage.
    const final = withWebSearches(repeatedCache(rewritten, usage), usage);
    return { event: event.event, data: reserialize(event.data, { ...payload, usage: final }) };
  }
  return event;
}

/** The stream's events rewritten for this request, in send order, `ping` events included as recorded. */
export function messageStreamEvents(
  events: readonly AnthropicEvent[],
  identity: MessageIdentity,
  usage: TokenCounts | undefined,
): AnthropicEvent[] {
  return events.map((event) => rewriteEvent(event, identity, usage));
}

/** The stream's frames in send order. */
export function messageStreamFrames(
  events: readonly AnthropicEvent[],
  identity: MessageIdentity,
  usage: TokenCounts | undefined,
): string[] {
  return messageStreamEvents(events, identity, usage).map(anthropicFrame);
}
