// A stream translated from shared chat chunks into Anthropic's event sequence:
//   message_start (with the first chunk), ping,
//   per content block, in order: content_block_start, content_block_delta..., content_block_stop
//     reasoning deltas -> a thinking block (thinking_delta)
//     content deltas   -> a text block (text_delta)
//     a tool call      -> a tool_use block (input_json_delta with each arguments fragment)
//   message_delta (stop_reason, usage with cache fields and cost), message_stop   (finish)
// A block closes when another kind of content starts or the answer ends. The
// usage-only chunk is not rendered: its counts reach finish() through the meter.
// After a failure: the open block closed, message_delta with the usage, then `event: error`.
import type { GatewayError } from "@gateway/proto";
import type { OpenAiChunk } from "../../providers/provider-adapter";
import type { SseEvent } from "../../upstream/sse-parser";
import type { AnswerContext, RenderContext, StreamRenderer } from "../client-dialect";
import { anthropicErrorFrame, sseFrame } from "./anthropic-errors";
import { isRecord, type JsonObject } from "./json-fields";
import { reasoningText } from "./message-object";
import { anthropicStopReason, messageId } from "./stop-reason";
import { anthropicUsage } from "./usage";

type OpenBlock = { kind: "text" } | { kind: "thinking" } | { kind: "tool"; toolIndex: number };

export class TranslatedStreamRenderer implements StreamRenderer {
  private started = false;
  private blockCount = 0;
  private open: OpenBlock | undefined;
  private stopReason: string | null = null;
  private model: string;

  constructor(private readonly context: RenderContext) {
    this.model = context.upstreamModel;
  }

  frames(_event: SseEvent | undefined, chunks: readonly OpenAiChunk[]): string {
    let out = "";
    for (const chunk of chunks) {
      const choice = Array.isArray(chunk.choices) && isRecord(chunk.choices[0]) ? chunk.choices[0] : undefined;
      if (!choice) continue; // the usage-only chunk
      if (typeof chunk.model === "string" && !this.started) this.model = chunk.model;
      out += this.start();
      const delta = isRecord(choice.delta) ? choice.delta : {};
      const reasoning = reasoningText(delta);
      if (reasoning)
        out += this.into(
          { kind: "thinking" },
          { type: "thinking", thinking: "", signature: "" },
          { type: "thinking_delta", thinking: reasoning },
        );
      if (typeof delta.content === "string" && delta.content.length > 0)
        out += this.into({ kind: "text" }, { type: "text", text: "" }, { type: "text_delta", text: delta.content });
      if (Array.isArray(delta.tool_calls)) for (const call of delta.tool_calls) if (isRecord(call)) out += this.toolCall(call);
      if (typeof choice.finish_reason === "string") {
        this.stopReason = anthropicStopReason(choice.finish_reason);
        out += this.close();
      }
    }
    return out;
  }

  finish(context: AnswerContext, failure: GatewayError | undefined): string {
    let out = this.start() + this.close();
    const usage = anthropicUsage(context.usage, context.tokens, context.debitedNano);
    const stopReason = failure ? null : (this.stopReason ?? "end_turn");
    out += sseFrame("message_delta", { type: "message_delta", delta: { stop_reason: stopReason, stop_sequence: null }, usage });
    return out + (failure ? anthropicErrorFrame(failure) : sseFrame("message_stop", { type: "message_stop" }));
  }

  /** message_start and a ping, once. Input counts are not known before the end: message_delta carries them. */
  private start(): string {
    if (this.started) return "";
    this.started = true;
    const message = {
      id: messageId(this.context.requestId),
      type: "message",
      role: "assistant",
      model: this.model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 0 },
    };
    return sseFrame("message_start", { type: "message_start", message }) + sseFrame("ping", { type: "ping" });
  }

  private toolCall(call: JsonObject): string {
    const toolIndex = typeof call.index === "number" ? call.index : 0;
    const fn = isRecord(call.function) ? call.function : {};
    let out = "";
    const isNew = this.open?.kind !== "tool" || this.open.toolIndex !== toolIndex;
    if (isNew) {
      out += this.close();
      const block = { type: "tool_use", id: call.id ?? `toolu_${this.blockCount}`, name: fn.name ?? "", input: {} };
      out += this.openBlock({ kind: "tool", toolIndex }, block);
    }
    if (typeof fn.arguments === "string" && fn.arguments.length > 0)
      out += this.delta({ type: "input_json_delta", partial_json: fn.arguments });
    return out;
  }

  /** Into a block of this kind (opening one when another kind is open), then the delta. */
  private into(kind: OpenBlock, block: JsonObject, delta: JsonObject): string {
    let out = "";
    if (this.open?.kind !== kind.kind) out += this.close() + this.openBlock(kind, block);
    return out + this.delta(delta);
  }

  private openBlock(kind: OpenBlock, block: JsonObject): string {
    this.open = kind;
    return sseFrame("content_block_start", { type: "content_block_start", index: this.blockCount, content_block: block });
  }

  private delta(delta: JsonObject): string {
    return sseFrame("content_block_delta", { type: "content_block_delta", index: this.blockCount, delta });
  }

  private close(): string {
    if (!this.open) return "";
    this.open = undefined;
    return sseFrame("content_block_stop", { type: "content_block_stop", index: this.blockCount++ });
  }
}
