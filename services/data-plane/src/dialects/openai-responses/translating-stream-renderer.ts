// A streamed answer translated into Responses events, from chat chunks:
// response.created and response.in_progress with the first output item (not
// before: an upstream that fails after a role-only chunk has sent the client
// nothing, so the answer is retried on the next path and not billed), then per
// output item (reasoning summary, message text or refusal, each function call)
// its `added`, deltas, `done` events, in OpenAI's order, and at the end
// response.completed (or response.incomplete) with the full response and usage
// with cost. Function calls stay open until the end: chat upstreams may send
// a call's argument pieces after another call began, and a finished item takes
// no more deltas. A failure ends the stream with an `error` event and
// response.failed. Every event is numbered from 0.
import type { GatewayError } from "@gateway/proto";
import type { OpenAiChunk } from "../../providers/provider-adapter";
import type { SseEvent } from "../../upstream/sse-parser";
import type { AnswerContext, RenderContext, StreamRenderer } from "../client-dialect";
import { HeldBudget } from "../held-budget";
import { reasoningText } from "../reasoning-text";
import {
  functionCallItem,
  messageItem,
  outputTextPart,
  refusalPart,
  ResponseIds,
  type ResponseStatus,
  reasoningItem,
  responseShell,
  statusOf,
} from "./response-object";
import { failureFrames } from "./responses-errors";
import { responsesFrame } from "./sse-frame";
import { responsesUsage } from "./usage";

/** One output item being streamed. */
interface Item {
  kind: "reasoning" | "message" | "function_call";
  id: string;
  outputIndex: number;
  /** The text (summary, message text or refusal, arguments) so far. */
  text: string;
  /** A message's one content part. */
  part?: "output_text" | "refusal";
  /** A function call's chat tool call id (the upstream's, or one made up) and index. */
  callId?: unknown;
  index?: unknown;
  name?: unknown;
  done: boolean;
}

type ToolCallDelta = { index?: unknown; id?: unknown; function?: { name?: unknown; arguments?: unknown } };

interface ChunkDelta {
  content?: unknown;
  refusal?: unknown;
  reasoning?: unknown;
  reasoning_content?: unknown;
  tool_calls?: ToolCallDelta[];
}

/** The call a tool call delta continues: by its id when it has one (a new id is a new call), else by its index, else the latest. */
function continuedCall(calls: readonly Item[], delta: ToolCallDelta): Item | undefined {
  if (typeof delta.id === "string" && delta.id !== "") return calls.find((call) => call.callId === delta.id);
  if (delta.index !== undefined && delta.index !== null) return calls.findLast((call) => call.index === delta.index);
  return calls.at(-1);
}

export class ResponsesTranslatingStreamRenderer implements StreamRenderer {
  private sequence = 0;
  /** response.created and in_progress went out: they wait for the first output item (see the header). */
  private started = false;
  private seenChunk = false;
  private readonly ids: ResponseIds;
  private readonly items: Item[] = [];
  /** The reasoning or message item text goes to; closed before the next item opens. */
  private open: Item | undefined;
  /** Function call items, in order; open until the end. */
  private readonly calls: Item[] = [];
  private finishReason: unknown;
  private model: unknown;
  private createdAt = Math.floor(Date.now() / 1000);
  /** The output is held whole for response.completed. */
  private readonly held: HeldBudget;

  constructor(private readonly context: RenderContext) {
    this.held = new HeldBudget(context.maxHeldLength);
    this.ids = new ResponseIds(context.requestId);
    this.model = context.upstreamModel;
  }

  frames(_event: SseEvent | undefined, chunks: readonly OpenAiChunk[]): string {
    let frames = "";
    for (const chunk of chunks) {
      if (!this.seenChunk) {
        this.seenChunk = true;
        if (typeof chunk.model === "string") this.model = chunk.model;
        if (typeof chunk.created === "number") this.createdAt = chunk.created;
      }
      const choice = (Array.isArray(chunk.choices) ? chunk.choices[0] : undefined) as
        | { delta?: ChunkDelta; finish_reason?: unknown }
        | undefined;
      if (!choice) continue;
      const delta = choice.delta ?? {};
      const reasoning = reasoningText(delta);
      if (reasoning !== "") frames += this.reasoning(reasoning);
      if (typeof delta.content === "string" && delta.content !== "") frames += this.text(delta.content, "output_text");
      if (typeof delta.refusal === "string" && delta.refusal !== "") frames += this.text(delta.refusal, "refusal");
      if (Array.isArray(delta.tool_calls)) for (const call of delta.tool_calls) frames += this.toolCall(call);
      if (choice.finish_reason !== undefined && choice.finish_reason !== null) this.finishReason = choice.finish_reason;
    }
    return frames;
  }

  finish(context: AnswerContext, failure: GatewayError | undefined): string {
    let frames = this.started ? "" : this.start();
    const usage = responsesUsage(context);
    if (failure) return frames + failureFrames(failure, this.sequence, { ...this.snapshot("in_progress", usage) });
    // An answer with no output is one empty message, as the whole answer gives.
    if (this.items.length === 0) frames += this.openItem("message", this.ids.nextMessage(), { part: "output_text" }).frames;
    frames += this.close(this.open);
    for (const call of this.calls) frames += this.close(call);
    const { status, incomplete } = statusOf(this.finishReason);
    const response = { ...this.snapshot(status, usage), incomplete_details: incomplete };
    return frames + this.emit(status === "completed" ? "response.completed" : "response.incomplete", { response });
  }

  private emit(type: string, fields: Record<string, unknown>): string {
    return responsesFrame(type, this.sequence++, fields);
  }

  private snapshot(status: ResponseStatus, usage: unknown): Record<string, unknown> {
    return responseShell(this.context.request, {
      id: this.ids.response,
      createdAt: this.createdAt,
      status,
      model: this.model,
      output: this.items.map((item) => this.itemObject(item)),
      usage,
    });
  }

  private start(): string {
    this.started = true;
    const response = this.snapshot("in_progress", null);
    return this.emit("response.created", { response }) + this.emit("response.in_progress", { response });
  }

  private contentPart(item: Item, text: string): Record<string, unknown> {
    return item.part === "refusal" ? refusalPart(text) : outputTextPart(text);
  }

  private itemObject(item: Item): Record<string, unknown> {
    const status = item.done ? "completed" : "in_progress";
    switch (item.kind) {
      case "reasoning":
        return reasoningItem(item.id, item.text);
      case "message":
        return messageItem(item.id, status, item.done ? [this.contentPart(item, item.text)] : []);
      case "function_call":
        return functionCallItem(item.id, status, { callId: item.callId, name: item.name, arguments: item.done ? item.text : "" });
    }
  }

  /** A new item after the open reasoning or message item is closed (function calls stay open). */
  private openItem(kind: Item["kind"], id: string, fields: Partial<Item> = {}): { item: Item; frames: string } {
    let frames = (this.started ? "" : this.start()) + this.close(this.open);
    const item: Item = { kind, id, outputIndex: this.items.length, text: "", done: false, ...fields };
    this.items.push(item);
    if (kind === "function_call") this.calls.push(item);
    else this.open = item;
    const added = kind === "reasoning" ? { id, type: "reasoning", summary: [] } : this.itemObject(item);
    frames += this.emit("response.output_item.added", { output_index: item.outputIndex, item: added });
    const where = { item_id: id, output_index: item.outputIndex };
    if (kind === "reasoning")
      frames += this.emit("response.reasoning_summary_part.added", {
        ...where,
        summary_index: 0,
        part: { type: "summary_text", text: "" },
      });
    if (kind === "message")
      frames += this.emit("response.content_part.added", { ...where, content_index: 0, part: this.contentPart(item, "") });
    return { item, frames };
  }

  /** An item's closing events (none for an item already closed). */
  private close(item: Item | undefined): string {
    if (!item || item.done) return "";
    if (item === this.open) this.open = undefined;
    item.done = true;
    const where = { item_id: item.id, output_index: item.outputIndex };
    let frames = "";
    if (item.kind === "reasoning") {
      frames += this.emit("response.reasoning_summary_text.done", { ...where, summary_index: 0, text: item.text });
      const part = { type: "summary_text", text: item.text };
      frames += this.emit("response.reasoning_summary_part.done", { ...where, summary_index: 0, part });
    }
    if (item.kind === "message") {
      frames +=
        item.part === "refusal"
          ? this.emit("response.refusal.done", { ...where, content_index: 0, refusal: item.text })
          : this.emit("response.output_text.done", { ...where, content_index: 0, text: item.text, logprobs: [] });
      frames += this.emit("response.content_part.done", { ...where, content_index: 0, part: this.contentPart(item, item.text) });
    }
    if (item.kind === "function_call") frames += this.emit("response.function_call_arguments.done", { ...where, arguments: item.text });
    return frames + this.emit("response.output_item.done", { output_index: item.outputIndex, item: this.itemObject(item) });
  }

  private reasoning(text: string): string {
    let frames = "";
    let item = this.open;
    if (item?.kind !== "reasoning") ({ item, frames } = this.openItem("reasoning", this.ids.nextReasoning()));
    this.held.take(text.length);
    item.text += text;
    return (
      frames +
      this.emit("response.reasoning_summary_text.delta", {
        item_id: item.id,
        output_index: item.outputIndex,
        summary_index: 0,
        delta: text,
      })
    );
  }

  /** Message text or refusal text: a message item holds one kind of part, so a change of kind opens another. */
  private text(text: string, part: "output_text" | "refusal"): string {
    let frames = "";
    let item = this.open;
    if (item?.kind !== "message" || item.part !== part) ({ item, frames } = this.openItem("message", this.ids.nextMessage(), { part }));
    this.held.take(text.length);
    item.text += text;
    const where = { item_id: item.id, output_index: item.outputIndex, content_index: 0 };
    if (part === "refusal") return frames + this.emit("response.refusal.delta", { ...where, delta: text });
    return frames + this.emit("response.output_text.delta", { ...where, delta: text, logprobs: [] });
  }

  /** A chat tool call delta: one that starts a call opens a function_call item, the argument pieces become deltas of that item. */
  private toolCall(call: ToolCallDelta): string {
    let frames = "";
    let item = continuedCall(this.calls, call);
    if (!item) {
      const callId = typeof call.id === "string" && call.id !== "" ? call.id : `call_${this.ids.response.slice(5)}_${this.calls.length}`;
      ({ item, frames } = this.openItem("function_call", this.ids.nextFunctionCall(), {
        callId,
        index: call.index,
        name: call.function?.name ?? "",
      }));
    }
    const piece = call.function?.arguments;
    if (typeof piece !== "string" || piece === "") return frames;
    this.held.take(piece.length);
    item.text += piece;
    return frames + this.emit("response.function_call_arguments.delta", { item_id: item.id, output_index: item.outputIndex, delta: piece });
  }
}
