// A stream translated from shared chat chunks into Anthropic's event sequence:
//   message_start, ping (with the first chunk that has content, so a stream
//     that fails after a role-only chunk wrote nothing and can be retried),
//   per content block, in order: content_block_start, content_block_delta..., content_block_stop
//     reasoning deltas        -> a thinking block (thinking_delta)
//     content, refusal deltas -> a text block (text_delta); a refusal makes stop_reason "refusal"
//     tool calls              -> tool_use blocks, each written whole (tool-call-buffer.ts)
//   message_delta (stop_reason, usage with cache fields and cost), message_stop   (finish)
// Text and thinking stream as they come; a block closes when another kind of
// content starts or the answer ends. The usage-only chunk is not rendered: its
// counts reach finish() through the meter.
// After a failure: the open block closed, message_delta with the usage, then `event: error`.
import type { GatewayError } from "@gateway/proto";
import type { OpenAiChunk } from "../../providers/provider-adapter";
import type { SseEvent } from "../../upstream/sse-parser";
import type { AnswerContext, RenderContext, StreamRenderer } from "../client-dialect";
import { reasoningText } from "../reasoning-text";
import { namedFrame } from "../sse-frames";
import { anthropicErrorFrame } from "./anthropic-errors";
import { isRecord, type JsonObject } from "./json-fields";

import { anthropicStopReason, messageId } from "./stop-reason";
import { HeldBudget } from "../held-budget";
import { ToolCallBuffer } from "./tool-call-buffer";
import { anthropicUsage } from "./usage";

type StreamedBlock = "text" | "thinking";

export class MessagesTranslatedStreamRenderer implements StreamRenderer {
  private started = false;
  private blockCount = 0;
  private open: StreamedBlock | undefined;
  private readonly toolCalls: ToolCallBuffer;
  private refused = false;
  private stopReason: string | null = null;
  private model: string;

  constructor(private readonly context: RenderContext) {
    this.model = context.upstreamModel;
    this.toolCalls = new ToolCallBuffer(new HeldBudget(context.maxHeldLength));
  }

  frames(_event: SseEvent | undefined, chunks: readonly OpenAiChunk[]): string {
    let out = "";
    for (const chunk of chunks) {
      const choice = Array.isArray(chunk.choices) && isRecord(chunk.choices[0]) ? chunk.choices[0] : undefined;
      if (!choice) continue; // the usage-only chunk
      if (typeof chunk.model === "string" && !this.started) this.model = chunk.model;
      const delta = isRecord(choice.delta) ? choice.delta : {};
      const reasoning = reasoningText(delta);
      if (reasoning)
        out += this.into("thinking", { type: "thinking", thinking: "", signature: "" }, { type: "thinking_delta", thinking: reasoning });
      for (const field of ["content", "refusal"] as const) {
        const text = delta[field];
        if (typeof text !== "string" || text.length === 0) continue;
        if (field === "refusal") this.refused = true;
        out += this.into("text", { type: "text", text: "" }, { type: "text_delta", text });
      }
      if (Array.isArray(delta.tool_calls)) {
        const calls = delta.tool_calls.filter(isRecord);
        if (calls.length > 0) out += this.start() + this.close();
        for (const call of calls) this.toolCalls.add(call);
      }
      if (typeof choice.finish_reason === "string") this.stopReason = anthropicStopReason(choice.finish_reason);
    }
    return out;
  }

  finish(context: AnswerContext, failure: GatewayError | undefined): string {
    let out = this.start() + this.close() + this.writeToolCalls();
    const usage = anthropicUsage(context.tokens, context.debitedNano);
    const stopReason = failure ? null : this.refused ? "refusal" : (this.stopReason ?? "end_turn");
    out += namedFrame("message_delta", { type: "message_delta", delta: { stop_reason: stopReason, stop_sequence: null }, usage });
    return out + (failure ? anthropicErrorFrame(failure) : namedFrame("message_stop", { type: "message_stop" }));
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
      usage: {
        input_tokens: 0,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
        cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 },
        output_tokens: 0,
      },
    };
    return namedFrame("message_start", { type: "message_start", message }) + namedFrame("ping", { type: "ping" });
  }

  /** Into a streamed block of this kind (the tool calls before it written, another kind closed), then the delta. */
  private into(kind: StreamedBlock, block: JsonObject, delta: JsonObject): string {
    let out = this.start() + this.writeToolCalls();
    if (this.open !== kind) {
      out += this.close() + this.blockFrame("content_block_start", { content_block: block });
      this.open = kind;
    }
    return out + this.blockFrame("content_block_delta", { delta });
  }

  /** Each gathered tool call as a whole tool_use block: start, its arguments in one input_json_delta, stop. */
  private writeToolCalls(): string {
    let out = "";
    for (const call of this.toolCalls.take()) {
      const block = { type: "tool_use", id: call.id ?? `toolu_${this.blockCount}`, name: call.name, input: {} };
      out += this.blockFrame("content_block_start", { content_block: block });
      if (call.arguments.length > 0)
        out += this.blockFrame("content_block_delta", { delta: { type: "input_json_delta", partial_json: call.arguments } });
      out += this.blockFrame("content_block_stop", {});
      this.blockCount++;
    }
    return out;
  }

  private close(): string {
    if (!this.open) return "";
    this.open = undefined;
    const out = this.blockFrame("content_block_stop", {});
    this.blockCount++;
    return out;
  }

  private blockFrame(type: string, fields: JsonObject): string {
    return namedFrame(type, { type, index: this.blockCount, ...fields });
  }
}
