// The OpenAI-compatible adapter's native Responses codec: the pass-through
// call, and recorded answers and event streams read into the shared
// representation for the usage meter.
import { describe, expect, it } from "vitest";
import { OpenAiCompatibleAdapter } from "../../src/providers/openai-compatible/openai-compatible-adapter";
import type { StreamItem } from "../../src/providers/provider-adapter";
import { SseParser } from "../../src/upstream/sse-parser";
import { fixtures } from "../support/fixture";

const recorded = fixtures("openai-compatible");
const codec = new OpenAiCompatibleAdapter([], true).native("openai-responses")!;
const context = { upstreamModel: "gpt-up", apiKey: "sk-up", maxOutputTokens: 4096 };
const responseContext = { id: "chatcmpl-1", created: 1, model: "gpt-up" };

function readStream(file: string): StreamItem[] {
  const reader = codec.stream(responseContext);
  return new SseParser()
    .push(recorded.text(file))
    .flatMap((item) => (item.kind === "event" ? reader.push(item.event) : []))
    .concat(reader.end());
}

describe("the Responses codec is configuration", () => {
  it("exists only on an adapter told its upstream serves the Responses API", () => {
    expect(new OpenAiCompatibleAdapter([]).native("openai-responses")).toBeUndefined();
    expect(codec).toBeDefined();
  });
});

describe("call", () => {
  it("sends the body as written to /responses: the upstream's model id, accepted fields only, store false", () => {
    const body = {
      model: "auto",
      input: [{ role: "user", content: "hi" }],
      tools: [{ type: "function", name: "f" }],
      store: false,
      service: { tier: "economy" },
      stream_options: { include_obfuscation: false },
      made_up: 1,
    };
    const call = codec.call(body, context);
    expect(call.path).toBe("/responses");
    expect(call.headers).toMatchObject({ authorization: "Bearer sk-up", "content-type": "application/json" });
    expect(call.body).toBe(
      JSON.stringify({ model: "gpt-up", input: [{ role: "user", content: "hi" }], tools: [{ type: "function", name: "f" }], store: false }),
    );
  });

  it("keeps stream_options on a stream and caps the answer in max_output_tokens", () => {
    const call = codec.call({ model: "auto", input: "hi", stream: true, stream_options: { include_obfuscation: false } }, context, 64);
    expect(JSON.parse(call.body)).toEqual({
      model: "gpt-up",
      input: "hi",
      stream: true,
      stream_options: { include_obfuscation: false },
      store: false,
      include: ["reasoning.encrypted_content"],
      max_output_tokens: 64,
    });
  });

  it("asks for encrypted reasoning when the client did not send store: false, keeping its own include entries", () => {
    const include = (body: Record<string, unknown>) =>
      JSON.parse(codec.call({ model: "auto", input: "hi", ...body }, context).body).include;
    expect(include({ include: ["message.output_text.logprobs"] })).toEqual(["message.output_text.logprobs", "reasoning.encrypted_content"]);
    expect(include({ store: true, include: ["reasoning.encrypted_content"] })).toEqual(["reasoning.encrypted_content"]);
    expect(include({ store: false })).toBeUndefined();
    expect(include({ store: false, include: ["message.output_text.logprobs"] })).toEqual(["message.output_text.logprobs"]);
  });
});

describe("reading whole answers", () => {
  it("reads a text answer and its usage in the shared shape", () => {
    const answer = codec.response(recorded.json("openai.responses.response.json"), responseContext);
    expect(answer).toMatchObject({ object: "chat.completion", model: "gpt-4o-mini-2024-07-18", created: 1754925861 });
    expect((answer.choices as { message: { content: string } }[])[0]!.message.content).toMatch(/^I can't provide real-time updates/);
    expect(answer.usage).toEqual({
      prompt_tokens: 14,
      completion_tokens: 50,
      total_tokens: 64,
      prompt_tokens_details: { cached_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: 0 },
    });
  });

  it("reads a function call as a tool call", () => {
    const answer = codec.response(recorded.json("openai.responses.tools.response.json"), responseContext);
    expect((answer.choices as unknown[])[0]).toEqual({
      index: 0,
      message: {
        role: "assistant",
        content: null,
        tool_calls: [
          {
            id: "call_2mhz5FtwkZnzXQkTOMtYZpZH",
            type: "function",
            function: { name: "semantic_scholar_search", arguments: '{"query":"machine learning","limit":10,"offset":0,"year":0}' },
          },
        ],
      },
      finish_reason: "tool_calls",
    });
  });

  it("reads reasoning summaries and reasoning tokens", () => {
    const answer = codec.response(recorded.json("openai.responses.reasoning.response.json"), responseContext);
    const message = (answer.choices as { message: { reasoning?: string } }[])[0]!.message;
    expect(message.reasoning!.length).toBeGreaterThan(0);
    expect((answer.usage as { completion_tokens_details: unknown }).completion_tokens_details).toEqual({ reasoning_tokens: 128 });
  });

  it.each<[string, unknown]>([
    ["an error body", { error: { code: "x" } }],
    ["a failed response", { object: "response", status: "failed", error: { code: "server_error" }, output: [] }],
    ["no output list", { object: "response" }],
    ["not an object", []],
  ])("refuses %s", (_case, body) => {
    expect(() => codec.response(body, responseContext)).toThrow();
  });

  it("reads an answer cut by max_output_tokens as a length finish", () => {
    const body = {
      ...recorded.json("openai.responses.response.json"),
      status: "incomplete",
      incomplete_details: { reason: "max_output_tokens" },
    };
    expect((codec.response(body, responseContext).choices as { finish_reason: string }[])[0]!.finish_reason).toBe("length");
  });
});

describe("reading streams", () => {
  const deltas = (items: StreamItem[]) =>
    items.flatMap((item) => (item.kind === "chunk" ? [(item.chunk.choices as { delta: Record<string, unknown> }[])[0]!.delta] : []));

  it("reads text deltas, the usage of response.completed, then done", () => {
    const items = readStream("openai.responses.stream.sse");
    expect(
      deltas(items)
        .map((delta) => delta.content ?? "")
        .join(""),
    ).toBe("`arm64` (Apple Silicon).");
    const last = items.at(-2)!;
    expect(last.kind === "chunk" && last.chunk).toMatchObject({
      id: "resp_0b0392bd3bb81302006994e83ac0ac819396f3f5aa5f239e03",
      model: "gpt-5.2-2025-12-11",
      choices: [{ finish_reason: "stop" }],
      usage: { prompt_tokens: 444, completion_tokens: 12, total_tokens: 456 },
    });
    expect(items.at(-1)).toEqual({ kind: "done" });
  });

  it("reads reasoning summary deltas and a function call's start and argument deltas as tool_call deltas", () => {
    const items = readStream("openai.responses.stream.reasoning_tools.sse");
    const all = deltas(items);
    expect(all.some((delta) => typeof delta.reasoning === "string")).toBe(true);
    const calls = all.flatMap((delta) => (delta.tool_calls as { index: number; id?: string; function: Record<string, string> }[]) ?? []);
    expect(calls[0]).toEqual({
      index: 0,
      id: "call_AB6AaRZ1FYZB2RwS6A5vbdqn",
      type: "function",
      function: { name: "calculator", arguments: "" },
    });
    expect(calls.map((call) => call.function.arguments).join("")).toBe('{"a":12,"b":7,"op":"add"}');
    expect(calls.every((call) => call.index === 0)).toBe(true);
    const last = items.at(-2)!;
    expect(last.kind === "chunk" && (last.chunk.choices as { finish_reason: string }[])[0]!.finish_reason).toBe("tool_calls");
    expect(items.at(-1)).toEqual({ kind: "done" });
  });

  it("reports an event that is not JSON as malformed, its content lost", () => {
    const reader = codec.stream(responseContext);
    expect(reader.push({ event: "response.output_text.delta", data: "{not json", id: undefined })).toEqual([
      { kind: "malformed", lost: true },
    ]);
  });

  it("reads an error event as a failure", () => {
    const items = readStream("openai.responses.stream.error.sse");
    expect(items[0]).toEqual({ kind: "error", category: undefined });
    expect(items.some((item) => item.kind === "done")).toBe(false);
  });
});
