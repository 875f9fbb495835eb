// Script `assembled`: a Chat Completions stream (OpenAI or OpenRouter chunks,
// already rewritten for this request, usage chunk included) folded into the
// one chat.completion the API returns for the same call without `stream`.
import { isRecord, type Json } from "./json";

interface ChoiceParts {
  role: unknown;
  content: string | null;
  refusal: string | null;
  toolCalls: Map<number, Json>;
  images: unknown[] | undefined;
  finishReason: unknown;
}

/** `text` appended to `joined`; null until some delta carries a string. */
function join(joined: string | null, text: unknown): string | null {
  return typeof text === "string" ? (joined ?? "") + text : joined;
}

/** id/type/name from the first fragment of each index, arguments concatenated in order. */
function addToolCall(calls: Map<number, Json>, fragment: Json): void {
  const index = typeof fragment.index === "number" ? fragment.index : calls.size;
  const fn = isRecord(fragment.function) ? fragment.function : {};
  const call = calls.get(index);
  if (!call) {
    calls.set(index, { id: fragment.id, type: fragment.type ?? "function", function: { name: fn.name, arguments: fn.arguments ?? "" } });
    return;
  }
  const callFn = call.function as Json;
  if (typeof fn.arguments === "string") callFn.arguments = String(callFn.arguments) + fn.arguments;
}

function addDelta(parts: ChoiceParts, choice: Json): void {
  const delta = isRecord(choice.delta) ? choice.delta : {};
  if (parts.role === undefined && delta.role !== undefined) parts.role = delta.role;
  parts.content = join(parts.content, delta.content);
  parts.refusal = join(parts.refusal, delta.refusal);
  if (Array.isArray(delta.tool_calls))
    for (const fragment of delta.tool_calls) if (isRecord(fragment)) addToolCall(parts.toolCalls, fragment);
  if (Array.isArray(delta.images)) parts.images = [...(parts.images ?? []), ...(delta.images as unknown[])];
  if (choice.finish_reason != null) parts.finishReason = choice.finish_reason;
}

function message(parts: ChoiceParts): Json {
  const out: Json = { role: parts.role ?? "assistant", content: parts.content };
  if (parts.toolCalls.size > 0) out.tool_calls = [...parts.toolCalls.entries()].sort(([a], [b]) => a - b).map(([, call]) => call);
  out.refusal = parts.refusal;
  if (parts.images) out.images = parts.images;
  return out;
}

/**
 * One chat.completion from stream chunks: per choice the deltas' content and
 * refusal joined (null when no delta carried one), tool calls merged by index,
 * images collected, the last finish_reason; usage from the usage chunk;
 * id/created/model and the other top-level fields (system_fingerprint, …) from
 * the first chunk, after `usage` as the API orders them.
 */
export function assembleChatCompletion(chunks: readonly Json[]): Json {
  const choices = new Map<number, ChoiceParts>();
  let usage: unknown;
  for (const chunk of chunks) {
    if (isRecord(chunk.usage)) usage = chunk.usage;
    for (const choice of Array.isArray(chunk.choices) ? chunk.choices : []) {
      if (!isRecord(choice)) continue;
      const index = typeof choice.index === "number" ? choice.index : 0;
      let parts = choices.get(index);
      if (!parts) {
        parts = { role: undefined, content: null, refusal: null, toolCalls: new Map(), images: undefined, finishReason: null };
        choices.set(index, parts);
      }
      addDelta(parts, choice);
    }
  }
  const { id, created, model, object: _object, choices: _choices, usage: _usage, ...rest } = chunks[0] ?? {};
  const completion: Json = {
    id,
    object: "chat.completion",
    created,
    model,
    choices: [...choices.entries()]
      .sort(([a], [b]) => a - b)
      .map(([index, parts]) => ({ index, message: message(parts), logprobs: null, finish_reason: parts.finishReason })),
  };
  if (usage !== undefined) completion.usage = usage;
  return { ...completion, ...rest };
}
