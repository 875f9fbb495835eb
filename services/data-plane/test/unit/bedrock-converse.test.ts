// The Converse codec (Amazon Nova, Llama, Mistral on Bedrock): OpenAI chat ->
// Converse request, recorded Converse answers -> chat.completion and the usage
// record, recorded ConverseStream bodies (the real binary one through the AWS
// event-stream parser, SDK-decoded event lists) -> chunks.
import { describe, expect, it } from "vitest";
import { ConverseAdapter } from "../../src/providers/bedrock/converse-adapter";
import type { ResponseContext, StreamItem, StreamTranslator } from "../../src/providers/provider-adapter";
import { AwsEventStreamParser } from "../../src/upstream/aws-event-stream";
import type { SseEvent } from "../../src/upstream/sse-parser";
import { fixtures } from "../support/fixture";

const recorded = fixtures("bedrock");
const MODEL = "us.amazon.nova-2-lite-v1:0";
const adapter = new ConverseAdapter(MODEL);
const context: ResponseContext = { id: "chatcmpl-test", created: 1_700_000_000, model: MODEL };
const requestContext = { upstreamModel: MODEL, apiKey: undefined, maxOutputTokens: 4096 };

/** The items of a binary event-stream body, split into small pieces to cross frame boundaries. */
export function translateBinary(translator: StreamTranslator, bytes: Uint8Array, pieceBytes = 97): StreamItem[] {
  const parser = new AwsEventStreamParser();
  const items: StreamItem[] = [];
  for (let at = 0; at < bytes.length; at += pieceBytes)
    for (const item of parser.push(bytes.subarray(at, at + pieceBytes)))
      if (item.kind === "event") items.push(...translator.push(item.event));
  return [...items, ...translator.end()];
}

/** SDK-decoded events, one `{"<eventType>": payload}` per line, as the parser would name them. */
function jsonlEvents(file: string): SseEvent[] {
  return recorded
    .text(file)
    .trim()
    .split("\n")
    .map((line) => {
      const [[event, payload]] = Object.entries(JSON.parse(line) as Record<string, unknown>) as [[string, unknown]];
      return { event, data: JSON.stringify(payload), id: undefined };
    });
}

type Delta = {
  content?: string;
  reasoning?: string;
  tool_calls?: { index: number; id?: string; function: { name?: string; arguments: string } }[];
};
const chunksOf = (items: StreamItem[]) =>
  items.flatMap((item) =>
    item.kind === "chunk" ? [item.chunk as { choices: { delta: Delta; finish_reason: string | null }[]; usage?: unknown }] : [],
  );
const deltas = (items: StreamItem[]) => chunksOf(items).flatMap((chunk) => chunk.choices.map((choice) => choice.delta));
const text = (items: StreamItem[]) =>
  deltas(items)
    .map((delta) => delta.content ?? "")
    .join("");
const finishReasons = (items: StreamItem[]) =>
  chunksOf(items).flatMap((chunk) => chunk.choices.flatMap((choice) => (choice.finish_reason ? [choice.finish_reason] : [])));

describe("Converse request", () => {
  it("translates system, turns, images, tool calls and results, inference and tool settings", () => {
    const call = adapter.request(
      "chat",
      {
        model: "nova",
        messages: [
          { role: "system", content: "Be brief." },
          {
            role: "user",
            content: [
              { type: "text", text: "What is here?" },
              { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0K" } },
            ],
          },
          {
            role: "assistant",
            content: null,
            tool_calls: [{ id: "tooluse_1", type: "function", function: { name: "look", arguments: '{"at":"x"}' } }],
          },
          { role: "tool", tool_call_id: "tooluse_1", content: "a cat" },
        ],
        max_tokens: 300,
        temperature: 0.2,
        top_p: 0.9,
        stop: ["END"],
        tools: [
          {
            type: "function",
            function: { name: "look", description: "Looks", parameters: { type: "object", properties: { at: { type: "string" } } } },
          },
        ],
        tool_choice: "required",
        seed: 4,
      },
      requestContext,
    );
    expect(call.path).toBe("/model/us.amazon.nova-2-lite-v1%3A0/converse");
    expect(call.headers).toEqual({ "content-type": "application/json", accept: "application/json" });
    expect(JSON.parse(call.body)).toEqual({
      system: [{ text: "Be brief." }],
      messages: [
        { role: "user", content: [{ text: "What is here?" }, { image: { format: "png", source: { bytes: "iVBORw0K" } } }] },
        { role: "assistant", content: [{ toolUse: { toolUseId: "tooluse_1", name: "look", input: { at: "x" } } }] },
        { role: "user", content: [{ toolResult: { toolUseId: "tooluse_1", content: [{ text: "a cat" }] } }] },
      ],
      inferenceConfig: { maxTokens: 300, temperature: 0.2, topP: 0.9, stopSequences: ["END"] },
      toolConfig: {
        tools: [
          {
            toolSpec: {
              name: "look",
              description: "Looks",
              inputSchema: { json: { type: "object", properties: { at: { type: "string" } } } },
            },
          },
        ],
        toolChoice: { any: {} },
      },
    });
  });

  it("streams through converse-stream and refuses web image URLs (no I/O in the adapter)", () => {
    const call = adapter.request("chat", { messages: [{ role: "user", content: "hi" }], stream: true }, requestContext);
    expect(call.path).toBe("/model/us.amazon.nova-2-lite-v1%3A0/converse-stream");
    expect(call.headers.accept).toBe("application/vnd.amazon.eventstream");
    expect(() =>
      adapter.request(
        "chat",
        { messages: [{ role: "user", content: [{ type: "image_url", image_url: { url: "https://x/y.png" } }] }] },
        requestContext,
      ),
    ).toThrow(/data URLs/);
  });
});

describe("Converse answers", () => {
  it("reads the recorded text answer", () => {
    const json = recorded.json("bedrock.converse.response.json");
    const answer = adapter.response("chat", json, context) as {
      choices: { message: { content: string }; finish_reason: string }[];
      usage: unknown;
    };
    expect(answer.choices[0]!.finish_reason).toBe("stop");
    expect(answer.choices[0]!.message.content).toBe((json as any).output.message.content[0].text);
  });

  it("reads a tool call, reasoning, and max_tokens", () => {
    const tools = adapter.response("chat", recorded.json("bedrock.converse.tools.response.json"), context) as any;
    expect(tools.choices[0].finish_reason).toBe("tool_calls");
    expect(tools.choices[0].message.tool_calls[0]).toMatchObject({ id: expect.stringMatching(/^tooluse_/), type: "function" });
    expect(JSON.parse(tools.choices[0].message.tool_calls[0].function.arguments)).toBeTypeOf("object");
    const reasoning = adapter.response("chat", recorded.json("bedrock.converse.reasoning.response.json"), context) as any;
    expect(reasoning.choices[0].message.reasoning.length).toBeGreaterThan(0);
    expect(reasoning.choices[0].message.content.length).toBeGreaterThan(0);
    const cut = adapter.response("chat", recorded.json("bedrock.converse.max_tokens.response.json"), context) as any;
    expect(cut.choices[0].finish_reason).toBe("length");
  });

  it("counts cached tokens into the prompt: inputTokens excludes them, prompt_tokens includes them", () => {
    const json = recorded.json("bedrock.converse.cache_write.response.json");
    expect(adapter.usage("chat", json)).toEqual({
      inputTokens: 3 + 1789,
      cachedInputTokens: 0,
      cacheWrite5mTokens: 1789,
      outputTokens: 401,
    });
    const answer = adapter.response("chat", json, context) as any;
    expect(answer.usage).toMatchObject({ prompt_tokens: 1792, completion_tokens: 401, total_tokens: 2193 });
    expect(
      adapter.usage("chat", {
        usage: {
          inputTokens: 5,
          outputTokens: 1,
          cacheWriteInputTokens: 100,
          cacheDetails: [
            { ttl: "1h", inputTokens: 60 },
            { ttl: "5m", inputTokens: 40 },
          ],
        },
      }),
    ).toEqual({
      inputTokens: 105,
      cachedInputTokens: 0,
      cacheWrite5mTokens: 40,
      cacheWrite1hTokens: 60,
      outputTokens: 1,
    });
  });
});

describe("ConverseStream", () => {
  it("translates the real binary body: text, finish at messageStop, done only after metadata", () => {
    const items = translateBinary(adapter.stream(context), recorded.bytes("bedrock.converse-stream.bin"));
    expect(text(items)).toBe("OK.");
    expect(finishReasons(items)).toEqual(["stop"]);
    expect(deltas(items)[0]).toMatchObject({ role: "assistant" });
    const usageItem = items.find((item) => item.kind === "chunk" && item.usage);
    expect(usageItem).toMatchObject({
      usage: { inputTokens: 12, outputTokens: 5 },
      chunk: { choices: [], usage: { prompt_tokens: 12, completion_tokens: 5, total_tokens: 17 } },
    });
    expect(items.at(-1)).toEqual({ kind: "done" });
  });

  it("does not finish at messageStop: a body cut before metadata never says done", () => {
    const events = jsonlEvents("bedrock.converse-stream.text.events.jsonl");
    const translator = adapter.stream(context);
    const items = events.slice(0, -1).flatMap((event) => translator.push(event));
    expect(items.some((item) => item.kind === "done")).toBe(false);
    expect(translator.end()).toEqual([]);
  });

  it("streams a tool call (start, whole-input delta, stop) and reasoning", () => {
    const translator = adapter.stream(context);
    const items = jsonlEvents("bedrock.converse-stream.tools.nova.observed.jsonl").flatMap((event) => translator.push(event));
    const calls = deltas(items).flatMap((delta) => delta.tool_calls ?? []);
    expect(calls[0]).toMatchObject({ index: 0, id: "tooluse_RFSTw0vUEJBYPxBU3kfgmi", function: { name: "find_slots", arguments: "" } });
    expect(JSON.parse(calls.map((call) => call.function.arguments).join(""))).toEqual({
      date: "2026-10-05",
      part_of_day: "afternoon",
      service_id: "teeth_cleaning",
    });
    expect(finishReasons(items)).toEqual(["tool_calls"]);
    expect(items.at(-1)).toEqual({ kind: "done" });

    const thinking = adapter.stream(context);
    const reasoned = jsonlEvents("bedrock.converse-stream.reasoning.events.jsonl").flatMap((event) => thinking.push(event));
    expect(
      deltas(reasoned)
        .map((delta) => delta.reasoning ?? "")
        .join("").length,
    ).toBeGreaterThan(0);
    expect(text(reasoned).length).toBeGreaterThan(0);
  });

  it("ends with an error item on an exception frame, and nothing after it", () => {
    const throttled = translateBinary(adapter.stream(context), recorded.bytes("bedrock.converse-stream.exception.throttling.bin"));
    expect(throttled).toEqual([{ kind: "error", category: undefined }]);
    const translator = adapter.stream(context);
    const events = jsonlEvents("bedrock.converse-stream.text.events.jsonl");
    translator.push(events[0]!);
    expect(translator.push({ event: "exception:modelStreamErrorException", data: "{}", id: undefined })).toEqual([
      { kind: "error", category: undefined },
    ]);
    expect(translator.push(events[1]!)).toEqual([]);
  });

  it("reports an unparsable event as malformed", () => {
    expect(adapter.stream(context).push({ event: "contentBlockDelta", data: "{nope", id: undefined })).toEqual([
      { kind: "malformed", lost: true },
    ]);
  });
});
