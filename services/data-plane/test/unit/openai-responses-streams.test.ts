// The Responses dialect's stream renderers: the translating one (chat chunks
// in, OpenAI's event sequence out) and the native one (a recorded stream
// relayed byte for byte, cost added to response.completed).
import { describe, expect, it } from "vitest";
import type { AnswerContext, StreamRenderer } from "../../src/dialects/client-dialect";
import { openAiResponses } from "../../src/dialects/openai-responses/openai-responses-dialect";
import { streamFailed } from "../../src/errors";
import { OpenAiCompatibleAdapter } from "../../src/providers/openai-compatible/openai-compatible-adapter";
import type { OpenAiChunk } from "../../src/providers/provider-adapter";
import { SseParser } from "../../src/upstream/sse-parser";
import { fixtures } from "../support/fixture";

const recorded = fixtures("openai-compatible");
const REQUEST_ID = "0a1b2c3d-4e5f-4071-8293-a4b5c6d7e8f9";
const request = openAiResponses.parse({ model: "auto", input: "hi", stream: true });
const event = { event: "message", data: "{}", id: undefined };

const answerContext = (fields: Partial<AnswerContext> = {}): AnswerContext => ({
  request,
  requestId: REQUEST_ID,
  usage: { prompt_tokens: 20, completion_tokens: 7, total_tokens: 27 },
  tokens: { inputTokens: 20, outputTokens: 7 },
  debitedNano: 12_345n,
  trace: undefined,
  upstreamModel: "up-model",
  ...fields,
});

const renderer = (native: boolean): StreamRenderer =>
  openAiResponses.streamRenderer({ request, requestId: REQUEST_ID, native, upstreamModel: "up-model" });

const chunk = (delta: Record<string, unknown>, finish: string | null = null): OpenAiChunk => ({
  id: "c1",
  object: "chat.completion.chunk",
  created: 1_700_000_000,
  model: "claude-up",
  choices: [{ index: 0, delta, finish_reason: finish }],
});

interface Parsed {
  name: string;
  data: Record<string, unknown> & { type: string; sequence_number: number };
}

/** Frames as (event name, data): each must be `event: X\ndata: {...}` with data.type === X. */
function parse(frames: string): Parsed[] {
  expect(frames.endsWith("\n\n")).toBe(true);
  return frames
    .slice(0, -2)
    .split("\n\n")
    .map((frame) => {
      const [name, data, ...rest] = frame.split("\n");
      expect(rest).toEqual([]);
      expect(name).toMatch(/^event: /);
      expect(data).toMatch(/^data: /);
      const parsed = { name: name!.slice(7), data: JSON.parse(data!.slice(6)) };
      expect(parsed.data.type).toBe(parsed.name);
      return parsed;
    });
}

function render(chunks: OpenAiChunk[], failure?: Parameters<StreamRenderer["finish"]>[1]): Parsed[] {
  const translating = renderer(false);
  let frames = "";
  for (const one of chunks) frames += translating.frames(event, [one]);
  frames += translating.finish(answerContext(), failure);
  const events = parse(frames);
  expect(events.map((one) => one.data.sequence_number)).toEqual(events.map((_, index) => index));
  return events;
}

const USAGE = {
  input_tokens: 20,
  input_tokens_details: { cached_tokens: 0 },
  output_tokens: 7,
  output_tokens_details: { reasoning_tokens: 0 },
  total_tokens: 27,
  cost: 0.000012345,
};

describe("the translating renderer", () => {
  it("writes a text answer in OpenAI's event order, ending with response.completed carrying the output and usage with cost", () => {
    const events = render([
      chunk({ role: "assistant", content: "" }),
      chunk({ content: "Hel" }),
      chunk({ content: "lo" }),
      chunk({}, "stop"),
    ]);
    expect(events.map((one) => one.name)).toEqual([
      "response.created",
      "response.in_progress",
      "response.output_item.added",
      "response.content_part.added",
      "response.output_text.delta",
      "response.output_text.delta",
      "response.output_text.done",
      "response.content_part.done",
      "response.output_item.done",
      "response.completed",
    ]);
    expect(events[0]!.data.response).toMatchObject({ status: "in_progress", model: "claude-up", output: [], usage: null });
    expect(events[4]!.data).toEqual({
      type: "response.output_text.delta",
      sequence_number: 4,
      item_id: "msg_0a1b2c3d4e5f40718293a4b5c6d7e8f9_0",
      output_index: 0,
      content_index: 0,
      delta: "Hel",
      logprobs: [],
    });
    expect(events[6]!.data).toMatchObject({ text: "Hello" });
    const completed = events.at(-1)!.data.response as Record<string, unknown>;
    expect(completed).toMatchObject({
      id: "resp_0a1b2c3d4e5f40718293a4b5c6d7e8f9",
      status: "completed",
      incomplete_details: null,
      output: [{ type: "message", status: "completed", content: [{ type: "output_text", text: "Hello" }] }],
      usage: USAGE,
    });
  });

  it("writes reasoning as a summary item, then parallel tool calls each with their argument deltas", () => {
    const events = render([
      chunk({ reasoning: "Think" }),
      chunk({ reasoning: "ing" }),
      chunk({ tool_calls: [{ index: 0, id: "toolu_1", type: "function", function: { name: "get_weather", arguments: "" } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '{"city":' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '"Paris"}' } }] }),
      chunk({ tool_calls: [{ index: 1, id: "toolu_2", type: "function", function: { name: "get_time", arguments: '{"city":"Rome"}' } }] }),
      chunk({}, "tool_calls"),
    ]);
    expect(events.map((one) => one.name)).toEqual([
      "response.created",
      "response.in_progress",
      "response.output_item.added",
      "response.reasoning_summary_part.added",
      "response.reasoning_summary_text.delta",
      "response.reasoning_summary_text.delta",
      "response.reasoning_summary_text.done",
      "response.reasoning_summary_part.done",
      "response.output_item.done",
      "response.output_item.added",
      "response.function_call_arguments.delta",
      "response.function_call_arguments.delta",
      "response.output_item.added",
      "response.function_call_arguments.delta",
      // Function calls stay open until the end (a later delta may still continue the first).
      "response.function_call_arguments.done",
      "response.output_item.done",
      "response.function_call_arguments.done",
      "response.output_item.done",
      "response.completed",
    ]);
    expect(events[9]!.data).toMatchObject({
      output_index: 1,
      item: { type: "function_call", status: "in_progress", arguments: "", call_id: "toolu_1", name: "get_weather" },
    });
    expect(events[14]!.data).toMatchObject({ output_index: 1, arguments: '{"city":"Paris"}' });
    expect(events[16]!.data).toMatchObject({ output_index: 2, arguments: '{"city":"Rome"}' });
    const completed = events.at(-1)!.data.response as { output: Record<string, unknown>[] };
    expect(completed.output).toEqual([
      { id: "rs_0a1b2c3d4e5f40718293a4b5c6d7e8f9_0", type: "reasoning", summary: [{ type: "summary_text", text: "Thinking" }] },
      {
        id: "fc_0a1b2c3d4e5f40718293a4b5c6d7e8f9_0",
        type: "function_call",
        status: "completed",
        arguments: '{"city":"Paris"}',
        call_id: "toolu_1",
        name: "get_weather",
      },
      {
        id: "fc_0a1b2c3d4e5f40718293a4b5c6d7e8f9_1",
        type: "function_call",
        status: "completed",
        arguments: '{"city":"Rome"}',
        call_id: "toolu_2",
        name: "get_time",
      },
    ]);
  });

  it("ends a length finish with response.incomplete, reason max_output_tokens", () => {
    const last = render([chunk({ content: "Cut" }), chunk({}, "length")]).at(-1)!;
    expect(last.name).toBe("response.incomplete");
    expect(last.data.response).toMatchObject({ status: "incomplete", incomplete_details: { reason: "max_output_tokens" }, usage: USAGE });
  });

  it("ends a failure with an error event and response.failed carrying the output so far and the billed usage", () => {
    const events = render([chunk({ content: "Hal" })], streamFailed());
    expect(events.map((one) => one.name).slice(-3)).toEqual(["response.output_text.delta", "error", "response.failed"]);
    expect(events.at(-2)!.data.error).toEqual({
      type: "upstream_error",
      code: 502,
      message: "The upstream provider failed during the stream.",
      param: null,
    });
    expect(events.at(-1)!.data.response).toMatchObject({
      status: "failed",
      error: { code: "502", message: "The upstream provider failed during the stream." },
      output: [{ type: "message", status: "in_progress" }],
      usage: USAGE,
    });
  });

  it("holds response.created and in_progress until the first output, so an upstream failing after a role-only chunk is retried", () => {
    const translating = renderer(false);
    expect(translating.frames(event, [chunk({ role: "assistant", content: "" })])).toBe("");
    const first = parse(translating.frames(event, [chunk({ content: "Hi" })]));
    expect(first.map((one) => one.name).slice(0, 3)).toEqual(["response.created", "response.in_progress", "response.output_item.added"]);
    expect(first[0]!.data.response).toMatchObject({ model: "claude-up", created_at: 1_700_000_000 });
  });

  it("sends the held opening before the failure events when finish comes with nothing sent", () => {
    const translating = renderer(false);
    expect(translating.frames(event, [chunk({ role: "assistant" })])).toBe("");
    const events = parse(translating.finish(answerContext(), streamFailed()));
    expect(events.map((one) => [one.name, one.data.sequence_number])).toEqual([
      ["response.created", 0],
      ["response.in_progress", 1],
      ["error", 2],
      ["response.failed", 3],
    ]);
  });

  it("answers an upstream that produced nothing with one empty message, as the whole answer does", () => {
    const events = render([chunk({ role: "assistant" }), chunk({}, "stop")]);
    expect(events.map((one) => one.name)).toEqual([
      "response.created",
      "response.in_progress",
      "response.output_item.added",
      "response.content_part.added",
      "response.output_text.done",
      "response.content_part.done",
      "response.output_item.done",
      "response.completed",
    ]);
    const whole = openAiResponses.answer(
      {
        object: "chat.completion",
        created: 1,
        model: "claude-up",
        choices: [{ message: { role: "assistant", content: "" }, finish_reason: "stop" }],
      },
      answerContext(),
    );
    expect((events.at(-1)!.data.response as { output: unknown }).output).toEqual(whole.output);
  });

  it("gives every message and reasoning item its own id when text, a tool call, then text (and reasoning twice) arrive", () => {
    const events = render([
      chunk({ reasoning: "a" }),
      chunk({ content: "Let me look." }),
      chunk({ tool_calls: [{ index: 0, id: "call_1", function: { name: "f", arguments: "{}" } }] }),
      chunk({ reasoning: "b" }),
      chunk({ content: "Done." }),
      chunk({}, "stop"),
    ]);
    const output = (events.at(-1)!.data.response as { output: { id: string; type: string }[] }).output;
    expect(output.map((item) => item.type)).toEqual(["reasoning", "message", "function_call", "reasoning", "message"]);
    expect(new Set(output.map((item) => item.id)).size).toBe(5);
  });

  it("streams a refusal as a refusal part, with refusal.delta and refusal.done, as the whole answer holds it", () => {
    const events = render([chunk({ refusal: "I can't " }), chunk({ refusal: "help." }), chunk({}, "stop")]);
    expect(events.map((one) => one.name)).toEqual([
      "response.created",
      "response.in_progress",
      "response.output_item.added",
      "response.content_part.added",
      "response.refusal.delta",
      "response.refusal.delta",
      "response.refusal.done",
      "response.content_part.done",
      "response.output_item.done",
      "response.completed",
    ]);
    expect(events[3]!.data.part).toEqual({ type: "refusal", refusal: "" });
    expect(events[4]!.data).toMatchObject({ content_index: 0, delta: "I can't " });
    expect(events[6]!.data).toMatchObject({ content_index: 0, refusal: "I can't help." });
    const whole = openAiResponses.answer(
      {
        object: "chat.completion",
        choices: [{ message: { role: "assistant", content: null, refusal: "I can't help." }, finish_reason: "stop" }],
      },
      answerContext(),
    );
    expect((events.at(-1)!.data.response as { output: unknown }).output).toEqual(whole.output);
  });

  /** The completed output's function calls as [call_id, name, arguments]. */
  const calls = (events: Parsed[]) =>
    (events.at(-1)!.data.response as { output: Record<string, unknown>[] }).output
      .filter((item) => item.type === "function_call")
      .map((item) => [item.call_id, item.name, item.arguments]);

  it("keeps two calls of one delta apart when they come without an index, by their ids", () => {
    const events = render([
      chunk({
        tool_calls: [
          { id: "call_a", type: "function", function: { name: "f", arguments: '{"a":1}' } },
          { id: "call_b", type: "function", function: { name: "g", arguments: '{"b":2}' } },
        ],
      }),
      chunk({}, "tool_calls"),
    ]);
    expect(calls(events)).toEqual([
      ["call_a", "f", '{"a":1}'],
      ["call_b", "g", '{"b":2}'],
    ]);
  });

  it("appends interleaved argument pieces (indices 0, 1, 0) to the right call, never to a finished item", () => {
    const events = render([
      chunk({ tool_calls: [{ index: 0, id: "call_a", function: { name: "f", arguments: '{"a":' } }] }),
      chunk({ tool_calls: [{ index: 1, id: "call_b", function: { name: "g", arguments: '{"b":2}' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: "1}" } }] }),
      chunk({}, "tool_calls"),
    ]);
    expect(calls(events)).toEqual([
      ["call_a", "f", '{"a":1}'],
      ["call_b", "g", '{"b":2}'],
    ]);
    // No delta for an item after its output_item.done.
    const doneAt = new Map<unknown, number>();
    events.forEach((one, at) => {
      if (one.name === "response.output_item.done") doneAt.set((one.data.item as { id: unknown }).id, at);
    });
    events.forEach((one, at) => {
      if (one.name.endsWith(".delta")) expect(at).toBeLessThan(doneAt.get(one.data.item_id)!);
    });
  });
});

describe("the native renderer", () => {
  /** Relays a recorded stream through the codec's reader and the native renderer, as the engine does; `writes` gets each frames() result. */
  function relay(file: string, failure?: Parameters<StreamRenderer["finish"]>[1], writes: [string, string][] = []) {
    const reader = new OpenAiCompatibleAdapter([], true).native("openai-responses")!.stream({ id: "x", created: 1, model: "m" });
    const native = renderer(true);
    let out = "";
    for (const item of new SseParser().push(recorded.text(file))) {
      if (item.kind !== "event") continue;
      const items = reader.push(item.event);
      if (items.some((one) => one.kind === "error")) break; // the engine stops at an upstream error
      const written = native.frames(
        item.event,
        items.flatMap((one) => (one.kind === "chunk" ? [one.chunk] : [])),
      );
      writes.push([item.event.event, written]);
      out += written;
    }
    return out + native.finish(answerContext(), failure);
  }

  it.each(["openai.responses.stream.sse", "openai.responses.stream.reasoning_tools.sse"])(
    "relays %s byte for byte, response.completed with usage.cost added",
    (file) => {
      const text = recorded.text(file);
      const at = text.indexOf("event: response.completed\n");
      const out = relay(file);
      expect(out.slice(0, at)).toBe(text.slice(0, at));
      const completed = JSON.parse(text.slice(at).split("\n")[1]!.slice(6));
      completed.response.usage.cost = 0.000012345;
      expect(out.slice(at)).toBe(`event: response.completed\ndata: ${JSON.stringify(completed)}\n\n`);
    },
  );

  it("holds response.created and in_progress until the first output item, then relays them with it", () => {
    const writes: [string, string][] = [];
    const text = recorded.text("openai.responses.stream.sse");
    relay("openai.responses.stream.sse", undefined, writes);
    expect(writes.slice(0, 3).map(([name, written]) => [name, written === ""])).toEqual([
      ["response.created", true],
      ["response.in_progress", true],
      ["response.output_item.added", false],
    ]);
    expect(writes[2]![1]).toBe(text.slice(0, writes[2]![1].length));
    expect(parse(writes[2]![1]).map((one) => one.name)).toEqual(["response.created", "response.in_progress", "response.output_item.added"]);
  });

  it("writes nothing for an upstream failing right after created and in_progress (OpenAI's quota pattern), so the engine retries it", () => {
    const writes: [string, string][] = [];
    relay("openai.responses.stream.error.sse", streamFailed(), writes);
    expect(writes).toEqual([
      ["response.created", ""],
      ["response.in_progress", ""],
    ]);
  });

  it("ends an upstream failure with its own error event and response.failed, numbered after the last relayed event", () => {
    const text = recorded.text("openai.responses.stream.error.sse");
    const at = text.indexOf("event: error\n");
    const out = relay("openai.responses.stream.error.sse", streamFailed());
    expect(out.slice(0, at)).toBe(text.slice(0, at));
    const events = parse(out.slice(at));
    expect(events.map((one) => [one.name, one.data.sequence_number])).toEqual([
      ["error", 2],
      ["response.failed", 3],
    ]);
    expect(events[1]!.data.response).toMatchObject({
      id: "resp_05500b38c2cd9bfc00691c7c9d222481a3b595421266dab424",
      status: "failed",
      error: { code: "502" },
      usage: USAGE,
    });
  });
});
