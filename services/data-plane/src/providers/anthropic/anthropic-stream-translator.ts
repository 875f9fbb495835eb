// Anthropic Messages SSE events -> OpenAI `chat.completion.chunk`s.
//
//   message_start                    -> nothing yet: role "assistant" rides on the first chunk that follows
//   content_block_start text         -> nothing (its text, if any, as content)
//   content_block_start tool_use     -> delta.tool_calls[{index, id, type, function {name, arguments: ""}}]
//   content_block_delta text_delta   -> delta.content
//   ... input_json_delta             -> delta.tool_calls[{index, function {arguments: partial_json}}]
//   ... thinking_delta               -> delta.reasoning (OpenRouter's field)
//   content_block_stop               -> nothing (a tool call that got no argument text gets "{}")
//   message_delta                    -> final chunk: finish_reason (and delta.refusal on a refusal)
//   message_stop                     -> usage-only chunk (choices: []), then done
//   ping, signature/citations deltas -> nothing
//   event: error                     -> error item with the category of its body
// OpenAI numbers tool calls 0, 1, ... among tool calls only, whereas
// Anthropic's `index` counts every content block (text and thinking too), so
// each tool_use block gets the next tool-call index when it starts.
//
// Usage is cumulative: message_start reports the input side (input and cache
// tokens) and message_delta the final output count, sometimes repeating or
// updating the input side; the later value of each field wins. The usage-only
// chunk carries it as OpenAI usage, and its item the record read from it.
import type { SseEvent } from "../../upstream/sse-parser";
import type { ResponseContext, StreamItem, StreamTranslator } from "../provider-adapter";
import { classifyAnthropicError } from "./classify-anthropic-error";
import { ChunkWriter } from "../chunk-writer";
import { readAnthropicUsage } from "./convert-anthropic-usage";
import { isRecord, nonEmptyString, type JsonObject } from "./json-values";
import { mapAnthropicStopReason } from "./map-anthropic-stop-reason";
import { refusalText } from "./refusal-text";
import { malformedEvent } from "../malformed-event";

type BlockState = { kind: "tool"; toolIndex: number; argumentText: string; startInput: string } | { kind: "other" };

export class AnthropicStreamTranslator implements StreamTranslator {
  private readonly blocks = new Map<number, BlockState>();
  private toolCallCount = 0;
  private usage: JsonObject = {};
  private readonly out: ChunkWriter;
  /** message_stop or an error ended the answer: later events are not part of it. */
  private over = false;

  constructor(context: ResponseContext) {
    this.out = new ChunkWriter(context, "anthropic");
  }

  push(event: SseEvent): StreamItem[] {
    if (this.over) return [];
    const data = parseJson(event.data);
    // The SSE event name is the type; the data's own `type` repeats it (and stands in if a relay dropped the name).
    const type = event.event !== "message" ? event.event : isRecord(data) ? data.type : undefined;
    if (type === "error") {
      // An error event after HTTP 200 ends the answer, even when its body cannot be read.
      this.over = true;
      return [{ kind: "error", category: classifyAnthropicError(data) }];
    }
    if (!isRecord(data)) return [malformedEvent(event)];
    switch (type) {
      case "message_start":
        return this.messageStart(data);
      case "content_block_start":
        return this.blockStart(data);
      case "content_block_delta":
        return this.blockDelta(data);
      case "content_block_stop":
        return this.blockStop(data);
      case "message_delta":
        return this.messageDelta(data);
      case "message_stop":
        return this.messageStop();
      default:
        return []; // ping, and event types added after this adapter was written
    }
  }

  /** A body that ends without message_stop is cut short: nothing to add (the proxy treats it as a failure). */
  end(): StreamItem[] {
    return [];
  }

  private messageStart(data: JsonObject): StreamItem[] {
    const message = isRecord(data.message) ? data.message : {};
    this.out.id = nonEmptyString(message.id) ?? this.out.id;
    this.out.model = nonEmptyString(message.model) ?? this.out.model;
    this.addUsage(message.usage);
    // The role goes out with the first real chunk: Anthropic's overload pattern is message_start then
    // `event: error`, and a stream that has sent nothing to the client can still be retried elsewhere.
    this.out.rolePending = true;
    return [];
  }

  private blockStart(data: JsonObject): StreamItem[] {
    const block = isRecord(data.content_block) ? data.content_block : {};
    const index = typeof data.index === "number" ? data.index : -1;
    if (block.type === "tool_use") {
      const toolIndex = this.toolCallCount++;
      // The input at the start is {} and fills through input_json_delta; kept in case it ever arrives whole.
      const startInput = isRecord(block.input) && Object.keys(block.input).length > 0 ? JSON.stringify(block.input) : "{}";
      this.blocks.set(index, { kind: "tool", toolIndex, argumentText: "", startInput });
      const call = { index: toolIndex, id: block.id, type: "function", function: { name: block.name, arguments: "" } };
      return [this.out.chunk({ tool_calls: [call] })];
    }
    this.blocks.set(index, { kind: "other" });
    // Blocks start empty and fill through deltas; text present at the start is still sent, not lost.
    if (block.type === "text" && nonEmptyString(block.text)) return [this.out.chunk({ content: block.text })];
    if (block.type === "thinking" && nonEmptyString(block.thinking)) return [this.out.chunk({ reasoning: block.thinking })];
    return [];
  }

  private blockDelta(data: JsonObject): StreamItem[] {
    const delta = isRecord(data.delta) ? data.delta : {};
    switch (delta.type) {
      case "text_delta":
        return nonEmptyString(delta.text) ? [this.out.chunk({ content: delta.text })] : [];
      case "thinking_delta":
        return nonEmptyString(delta.thinking) ? [this.out.chunk({ reasoning: delta.thinking })] : [];
      case "input_json_delta": {
        const block = this.blocks.get(typeof data.index === "number" ? data.index : -1);
        const fragment = delta.partial_json;
        if (block?.kind !== "tool" || typeof fragment !== "string" || fragment.length === 0) return [];
        block.argumentText += fragment;
        return [this.out.chunk({ tool_calls: [{ index: block.toolIndex, function: { arguments: fragment } }] })];
      }
      default:
        return []; // signature_delta (only needed to send thinking back), citations_delta
    }
  }

  private blockStop(data: JsonObject): StreamItem[] {
    const block = this.blocks.get(typeof data.index === "number" ? data.index : -1);
    // A tool without arguments streams no (or only empty) JSON; OpenAI clients parse the arguments,
    // and the non-streamed answer says "{}", so the stream says it too.
    if (block?.kind !== "tool" || block.argumentText.trim().length > 0) return [];
    block.argumentText = block.startInput;
    return [this.out.chunk({ tool_calls: [{ index: block.toolIndex, function: { arguments: block.startInput } }] })];
  }

  private messageDelta(data: JsonObject): StreamItem[] {
    this.addUsage(data.usage);
    const delta = isRecord(data.delta) ? data.delta : {};
    if (typeof delta.stop_reason !== "string" || this.out.finishSent) return [];
    const chunkDelta = delta.stop_reason === "refusal" ? { refusal: refusalText(delta.stop_details) } : {};
    return [this.out.finish(mapAnthropicStopReason(delta.stop_reason), chunkDelta)];
  }

  private messageStop(): StreamItem[] {
    this.over = true;
    const items: StreamItem[] = [];
    // message_delta always carries the stop reason; should one ever lack it, the answer still gets a final chunk.
    if (!this.out.finishSent) items.push(this.out.finish("stop"));
    const usage = readAnthropicUsage(this.usage);
    if (usage) items.push(this.out.usage(usage));
    items.push({ kind: "done" });
    return items;
  }

  /** Later counts replace earlier ones; a null (message_delta's "not reported") does not erase a count. */
  private addUsage(usage: unknown): void {
    if (!isRecord(usage)) return;
    for (const [key, value] of Object.entries(usage)) if (value !== null && value !== undefined) this.usage[key] = value;
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
