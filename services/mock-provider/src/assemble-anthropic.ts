// Script `assembled`: an Anthropic Messages stream (events already rewritten
// for this request) folded into the one Message the API returns for the same
// call without `stream`, the way the SDKs accumulate it.
import type { AnthropicEvent } from "./anthropic-sse";
import { isRecord, type Json } from "./json";

/** Applies one content_block_delta to its block; tool input JSON is collected in `partial`. */
function applyDelta(block: Json, delta: Json, partial: Map<Json, string>): void {
  switch (delta.type) {
    case "text_delta":
      block.text = String(block.text ?? "") + String(delta.text ?? "");
      break;
    case "input_json_delta":
      partial.set(block, (partial.get(block) ?? "") + String(delta.partial_json ?? ""));
      break;
    case "thinking_delta":
      block.thinking = String(block.thinking ?? "") + String(delta.thinking ?? "");
      break;
    case "signature_delta":
      block.signature = delta.signature;
      break;
    case "citations_delta":
      block.citations = [...(Array.isArray(block.citations) ? block.citations : []), delta.citation];
      break;
  }
}

/** Usage counters present and non-null in `update` replace the ones gathered so far. */
function mergeUsage(usage: unknown, update: unknown): Json {
  const merged: Json = { ...(isRecord(usage) ? usage : {}) };
  if (isRecord(update)) for (const [key, value] of Object.entries(update)) if (value != null) merged[key] = value;
  return merged;
}

/**
 * One Message from stream events: message_start's message (key order kept)
 * with its content blocks built from content_block_start + deltas (text and
 * thinking joined, tool_use input = the parsed concatenated partial_json),
 * stop_reason/stop_sequence from message_delta, usage = message_start's
 * updated by message_delta's (input from the start, final output from the delta).
 */
export function assembleMessage(events: readonly AnthropicEvent[]): Json {
  let message: Json = {};
  const blocks: Json[] = [];
  const partial = new Map<Json, string>();
  for (const { data } of events) {
    const payload = JSON.parse(data) as Json;
    const block = typeof payload.index === "number" ? blocks[payload.index] : undefined;
    if (payload.type === "message_start" && isRecord(payload.message)) message = { ...payload.message };
    else if (payload.type === "content_block_start" && isRecord(payload.content_block))
      blocks[payload.index as number] = { ...payload.content_block };
    else if (payload.type === "content_block_delta" && block && isRecord(payload.delta)) applyDelta(block, payload.delta, partial);
    else if (payload.type === "content_block_stop" && block && partial.has(block)) {
      const json = partial.get(block)!;
      block.input = json === "" ? {} : JSON.parse(json);
    } else if (payload.type === "message_delta") {
      message = { ...message, ...(isRecord(payload.delta) ? payload.delta : {}), usage: mergeUsage(message.usage, payload.usage) };
    }
  }
  return { ...message, content: blocks.filter(isRecord) };
}
