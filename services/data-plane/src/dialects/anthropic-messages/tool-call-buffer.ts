// Tool calls of a translated stream, gathered until they can be written as
// whole tool_use blocks. OpenAI-shaped deltas identify a call by `index`, by
// `id`, or by neither (a continuation of the last call); two calls may share a
// delta, and indices may interleave (0, 1, 0). Anthropic's content blocks are
// sequential, so a call is only written once no more fragments can belong to
// it: when another kind of block starts, or the answer ends.
import { HeldBudget } from "../held-budget";
import { isRecord, type JsonObject } from "./json-fields";

export interface BufferedToolCall {
  index: number | undefined;
  id: string | undefined;
  name: string;
  arguments: string;
}

export class ToolCallBuffer {
  private calls: BufferedToolCall[] = [];

  /** @param budget what the renderer may hold of the answer (held-budget.ts). */
  constructor(private readonly budget = new HeldBudget()) {}

  get empty(): boolean {
    return this.calls.length === 0;
  }

  /** One entry of a delta's `tool_calls`: a new call, or a fragment of one already seen. */
  add(raw: JsonObject): void {
    const index = typeof raw.index === "number" ? raw.index : undefined;
    const id = typeof raw.id === "string" && raw.id.length > 0 ? raw.id : undefined;
    const fn = isRecord(raw.function) ? raw.function : {};
    const name = typeof fn.name === "string" && fn.name.length > 0 ? fn.name : undefined;
    const call = this.find(index, id, name) ?? this.open(index, id);
    if (name !== undefined && call.name.length === 0) call.name = name;
    if (typeof fn.arguments === "string") {
      this.budget.take(fn.arguments.length);
      call.arguments += fn.arguments;
    }
  }

  /** The calls gathered, in the order they first appeared; the buffer is left empty. */
  take(): BufferedToolCall[] {
    const calls = this.calls;
    this.calls = [];
    return calls;
  }

  private find(index: number | undefined, id: string | undefined, name: string | undefined): BufferedToolCall | undefined {
    if (id !== undefined) {
      const byId = this.calls.find((call) => call.id === id);
      if (byId) return byId;
      // The first fragment of a call may have come with its index only.
      const unnamed = index === undefined ? undefined : this.calls.find((call) => call.index === index && call.id === undefined);
      if (unnamed) unnamed.id = id;
      return unnamed;
    }
    if (index !== undefined) return this.calls.findLast((call) => call.index === index);
    // Neither index nor id: a fragment of the last call, unless it names a call of its own.
    const last = this.calls.at(-1);
    return name !== undefined && last !== undefined && last.name.length > 0 ? undefined : last;
  }

  private open(index: number | undefined, id: string | undefined): BufferedToolCall {
    const call: BufferedToolCall = { index, id, name: "", arguments: "" };
    this.calls.push(call);
    return call;
  }
}
