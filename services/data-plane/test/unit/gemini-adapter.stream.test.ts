// GeminiAdapter stream translation, fed the recorded streamGenerateContent?alt=sse
// bodies through the gateway's SSE parser, and the check that a streamed answer
// and the same answer whole translate to the same message and usage.
import { describe, expect, it } from "vitest";
import type { OpenAiChunk, ResponseContext, StreamItem } from "../../src/providers/provider-adapter";
import { GeminiAdapter } from "../../src/providers/gemini/gemini-adapter";
import { SseParser, type SseEvent } from "../../src/upstream/sse-parser";
import { fixtures } from "../support/fixture";
import { GEMINI_IMAGE_STREAM, geminiImageStream } from "../support/gemini-image-stream";

/** A recorded body; the image stream with its image rebuilt to the recorded 1.3 MB (support/gemini-image-stream.ts). */
const wireText = (file: string): string => (file === GEMINI_IMAGE_STREAM ? geminiImageStream() : fixtures("gemini").text(file));

const adapter = new GeminiAdapter();
const context: ResponseContext = { id: "chatcmpl-gateway", created: 1_764_000_000, model: "gemini-2.0-flash" };

function sseEvents(text: string): SseEvent[] {
  const parser = new SseParser();
  return [...parser.push(text), ...parser.end()].flatMap((item) => (item.kind === "event" ? [item.event] : []));
}
const dataEvent = (data: unknown): SseEvent => ({
  event: "message",
  data: typeof data === "string" ? data : JSON.stringify(data),
  id: undefined,
});

function translate(events: SseEvent[]): StreamItem[] {
  const translator = adapter.stream(context);
  return [...events.flatMap((event) => translator.push(event)), ...translator.end()];
}
const chunksOf = (items: StreamItem[]): OpenAiChunk[] => items.flatMap((item) => (item.kind === "chunk" ? [item.chunk] : []));

interface Accumulated {
  id: unknown;
  model: unknown;
  message: Record<string, unknown>;
  finish_reason: unknown;
  usage: unknown;
}

/** What an OpenAI client builds from the chunks of choice 0 (content and reasoning concatenated, tool calls by index, images appended). */
function accumulate(chunks: OpenAiChunk[]): Accumulated {
  const message: Record<string, unknown> = {};
  const toolCalls: Record<string, unknown>[] = [];
  const images: unknown[] = [];
  let finishReason: unknown = null;
  let usage: unknown;
  for (const chunk of chunks) {
    if (chunk.usage) usage = chunk.usage;
    for (const choice of chunk.choices as { index: number; delta: Record<string, unknown>; finish_reason: unknown }[]) {
      if (choice.index !== 0) continue;
      const { delta } = choice;
      if (typeof delta.role === "string") message.role = delta.role;
      // OpenAI's opening delta says `refusal: null`; a refusal's text would come in pieces like content.
      if (delta.refusal === null) message.refusal ??= null;
      for (const key of ["content", "reasoning", "refusal"])
        if (typeof delta[key] === "string") message[key] = ((message[key] as string | undefined) ?? "") + (delta[key] as string);
      for (const call of (delta.tool_calls as { index: number }[] | undefined) ?? []) {
        const { index, ...rest } = call;
        toolCalls[index] = rest;
      }
      images.push(...((delta.images as unknown[] | undefined) ?? []));
      if (choice.finish_reason !== null) finishReason = choice.finish_reason;
    }
  }
  if (toolCalls.length > 0) message.tool_calls = toolCalls;
  if (images.length > 0) message.images = images;
  message.content ??= null;
  return { id: chunks[0]?.id, model: chunks.at(-1)?.model, message, finish_reason: finishReason, usage };
}

/** The whole answer the stream's events add up to: their parts in order, the last finish reason and usage. */
function mergeEvents(events: SseEvent[]): Record<string, unknown> {
  const responses = events.map((event) => JSON.parse(event.data) as Record<string, unknown>);
  const parts: unknown[] = [];
  let finishReason: unknown;
  for (const response of responses) {
    const candidate = (response.candidates as { content?: { parts?: unknown[] }; finishReason?: unknown }[])[0]!;
    parts.push(...(candidate.content?.parts ?? []));
    finishReason = candidate.finishReason ?? finishReason;
  }
  const last = responses.at(-1)!;
  return {
    candidates: [{ content: { role: "model", parts }, finishReason, index: 0 }],
    usageMetadata: last.usageMetadata,
    modelVersion: last.modelVersion,
    responseId: last.responseId,
  };
}

/** The whole-answer translation in the same terms as `accumulate` (chunks carry no empty `annotations`, as OpenAI's do not). */
function wholeAnswer(json: unknown): Accumulated {
  const completion = adapter.response("chat", json, context) as {
    id: unknown;
    model: unknown;
    choices: { message: Record<string, unknown>; finish_reason: unknown }[];
    usage?: unknown;
  };
  return {
    id: completion.id,
    model: completion.model,
    message: Object.fromEntries(Object.entries(completion.choices[0]!.message).filter(([key]) => key !== "annotations")),
    finish_reason: completion.choices[0]!.finish_reason,
    usage: completion.usage,
  };
}

describe("GeminiAdapter streams from recorded SSE bodies", () => {
  it("text stream: role first, text deltas, finish on the last event, then a usage-only chunk and done (gemini.streamGenerateContent.sse)", () => {
    const events = sseEvents(wireText("gemini.streamGenerateContent.sse"));
    const items = translate(events);
    expect(items.map((item) => item.kind)).toEqual([...Array<string>(11).fill("chunk"), "chunk", "done"]);
    const chunks = chunksOf(items);
    expect(chunks[0]).toEqual({
      id: "chatcmpl-pdSfaOurIPqAm9IPucqbqA4",
      object: "chat.completion.chunk",
      created: context.created,
      model: "gemini-2.0-flash",
      // What OpenAI's live chunks always carry (providers/openai-answer-fields.ts).
      service_tier: "default",
      system_fingerprint: expect.stringMatching(/^fp_[0-9a-f]{12}$/),
      choices: [{ index: 0, delta: { role: "assistant", content: "The", refusal: null }, finish_reason: null, logprobs: null }],
    });
    expect(chunks[1]!.choices).toEqual([{ index: 0, delta: { content: " sky is blue" }, finish_reason: null, logprobs: null }]);
    expect((chunks[10]!.choices as { finish_reason: unknown }[])[0]!.finish_reason).toBe("stop");
    expect(chunks[11]).toEqual({
      id: "chatcmpl-pdSfaOurIPqAm9IPucqbqA4",
      object: "chat.completion.chunk",
      created: context.created,
      model: "gemini-2.0-flash",
      service_tier: "default",
      system_fingerprint: chunks[0]!.system_fingerprint,
      choices: [],
      usage: { prompt_tokens: 6, completion_tokens: 377, total_tokens: 383 },
    });
    const text = accumulate(chunks).message.content as string;
    expect(text).toMatch(/^The sky is blue due to a phenomenon called \*\*Rayleigh scattering\*\*/);
    expect(text).toMatch(/hazy appearance\.$/);
  });

  it("tools stream: one event with a whole function call -> one tool_calls delta with full arguments, finish tool_calls (gemini.streamGenerateContent.tools.sse)", () => {
    const items = translate(sseEvents(wireText("gemini.streamGenerateContent.tools.sse")));
    expect(items).toEqual([
      {
        kind: "chunk",
        chunk: {
          id: "chatcmpl-xtSfaIRs8_Sf2Q-skYe5Dg",
          object: "chat.completion.chunk",
          created: context.created,
          model: "gemini-2.0-flash",
          service_tier: "default",
          system_fingerprint: expect.stringMatching(/^fp_[0-9a-f]{12}$/),
          choices: [
            {
              index: 0,
              delta: {
                role: "assistant",
                content: null,
                refusal: null,
                tool_calls: [
                  {
                    index: 0,
                    id: "call_xtSfaIRs8_Sf2Q-skYe5Dg_0",
                    type: "function",
                    function: { name: "customDivide", arguments: '{"denominator":2,"numerator":100}' },
                  },
                ],
              },
              finish_reason: "tool_calls",
              logprobs: null,
            },
          ],
        },
      },
      {
        kind: "chunk",
        chunk: {
          id: "chatcmpl-xtSfaIRs8_Sf2Q-skYe5Dg",
          object: "chat.completion.chunk",
          created: context.created,
          model: "gemini-2.0-flash",
          service_tier: "default",
          system_fingerprint: expect.stringMatching(/^fp_[0-9a-f]{12}$/),
          choices: [],
          usage: { prompt_tokens: 21, completion_tokens: 6, total_tokens: 27 },
        },
        usage: { inputTokens: 21, outputTokens: 6 },
      },
      { kind: "done" },
    ]);
  });

  it("image stream: text deltas, the image as delta.images (a data URL), an empty finishing delta, image tokens in usage (gemini.streamGenerateContent.image.sse)", () => {
    const text = wireText("gemini.streamGenerateContent.image.sse");
    const events = sseEvents(text);
    const items = translate(events);
    const chunks = chunksOf(items);
    expect(items.at(-1)).toEqual({ kind: "done" });
    const choices = chunks.map((chunk) => (chunk.choices as { delta: Record<string, unknown>; finish_reason: unknown }[])[0]);
    expect(choices.map((choice) => (choice ? Object.keys(choice.delta) : "usage"))).toEqual([
      ["role", "content", "refusal"],
      ["content"],
      ["content"],
      ["images"],
      [],
      "usage",
    ]);
    const recordedImage = (JSON.parse(events[3]!.data) as { candidates: { content: { parts: { inlineData: { data: string } }[] } }[] })
      .candidates[0]!.content.parts[0]!.inlineData.data;
    expect(choices[3]!.delta.images).toEqual([
      { type: "image_url", image_url: { url: `data:image/png;base64,${recordedImage}` }, index: 0 },
    ]);
    expect(recordedImage.length).toBeGreaterThan(1_000_000);
    expect(choices[4]!.finish_reason).toBe("stop");
    expect(chunks.at(-1)!.usage).toEqual({
      prompt_tokens: 15,
      completion_tokens: 1318,
      total_tokens: 1333,
      completion_tokens_details: { image_tokens: 1290 },
    });
    expect(accumulate(chunks).message.content).toBe(
      "I will generate an image of the Eiffel Tower at night, with a vibrant and colorful fireworks display exploding behind it, illuminating the sky.\n\n",
    );
  });
});

describe("GeminiAdapter: streamed and whole translations of the same answer agree", () => {
  // Each recorded stream against the whole answer its events add up to.
  it.each(["gemini.streamGenerateContent.sse", "gemini.streamGenerateContent.tools.sse", "gemini.streamGenerateContent.image.sse"])(
    "%s streamed = merged whole",
    (file) => {
      const events = sseEvents(wireText(file));
      expect(accumulate(chunksOf(translate(events)))).toEqual(wholeAnswer(mergeEvents(events)));
    },
  );

  // Each recorded whole answer against the same answer sent as a one-event stream.
  it.each([
    "gemini.generateContent.response.json",
    "gemini.generateContent.system_instruction.response.json",
    "gemini.generateContent.json_schema.response.json",
    "gemini.generateContent.thinking.response.json",
    "gemini.generateContent.tools.response.json",
  ])("%s whole = streamed as one event", (file) => {
    const body = wireText(file);
    expect(accumulate(chunksOf(translate([dataEvent(JSON.parse(body))])))).toEqual(wholeAnswer(JSON.parse(body)));
  });

  it("a whole answer split into one event per part streams to the same message (tools response split in two)", () => {
    const whole = JSON.parse(wireText("gemini.generateContent.tools.response.json")) as {
      candidates: { content: { parts: unknown[] }; finishReason?: string }[];
    };
    const [first, second] = whole.candidates[0]!.content.parts;
    const event1 = structuredClone(whole);
    event1.candidates[0]!.content.parts = [first];
    delete event1.candidates[0]!.finishReason;
    const event2 = structuredClone(whole);
    event2.candidates[0]!.content.parts = [second];
    const streamed = accumulate(chunksOf(translate([dataEvent(event1), dataEvent(event2)])));
    expect(streamed).toEqual(wholeAnswer(whole));
    expect((streamed.message.tool_calls as { id: string }[]).map((call) => call.id)).toEqual([
      "call_CTCtaLDkH4qH-8YP1_DmmQ0_0",
      "call_CTCtaLDkH4qH-8YP1_DmmQ0_1",
    ]);
  });
});

describe("GeminiAdapter streams (constructed)", () => {
  const text = (value: string, extra: Record<string, unknown> = {}) => ({
    candidates: [{ content: { role: "model", parts: [{ text: value }] }, ...extra }],
    responseId: "r1",
  });

  it("a stream without a finishReason ends with nothing (the proxy treats it as cut)", () => {
    const translator = adapter.stream(context);
    expect(translator.push(dataEvent(text("partial")))).toHaveLength(1);
    expect(translator.end()).toEqual([]);
  });

  it("an error envelope in the stream is an error item with its category", () => {
    const translator = adapter.stream(context);
    translator.push(dataEvent(text("Hel")));
    expect(translator.push(dataEvent({ error: { code: 404, message: "model gone", status: "NOT_FOUND" } }))).toEqual([
      { kind: "error", category: "model_not_found" },
    ]);
    expect(translator.push(dataEvent({ error: { code: 500, message: "internal", status: "INTERNAL" } }))).toEqual([
      { kind: "error", category: undefined },
    ]);
  });

  it("unparseable or non-object data is malformed, its content lost; an OpenAI-style [DONE] yields nothing", () => {
    const translator = adapter.stream(context);
    for (const data of ["{not json", "42", "[]", "null"])
      expect(translator.push(dataEvent(data))).toEqual([{ kind: "malformed", lost: true }]);
    expect(translator.push(dataEvent("[DONE]"))).toEqual([]);
  });

  it("usage-only and empty events emit nothing, but the latest usage is what end() reports", () => {
    const translator = adapter.stream(context);
    expect(translator.push(dataEvent({ usageMetadata: { promptTokenCount: 3 } }))).toEqual([]);
    translator.push(dataEvent(text("Hi", { finishReason: "STOP" })));
    expect(
      translator.push(
        dataEvent({
          candidates: [{ content: { role: "model", parts: [] } }],
          usageMetadata: { promptTokenCount: 3, candidatesTokenCount: 1, thoughtsTokenCount: 4, totalTokenCount: 8 },
        }),
      ),
    ).toEqual([]);
    expect(translator.end()).toEqual([
      {
        kind: "chunk",
        chunk: {
          id: "chatcmpl-gateway",
          object: "chat.completion.chunk",
          created: context.created,
          model: context.model,
          service_tier: "default",
          system_fingerprint: expect.stringMatching(/^fp_[0-9a-f]{12}$/),
          choices: [],
          usage: { prompt_tokens: 3, completion_tokens: 5, total_tokens: 8, completion_tokens_details: { reasoning_tokens: 4 } },
        },
        usage: { inputTokens: 3, outputTokens: 5, reasoningTokens: 4 },
      },
      { kind: "done" },
    ]);
  });

  it("thought parts stream as delta.reasoning; the id stays the first event's", () => {
    const chunks = chunksOf(
      translate([
        dataEvent({ candidates: [{ content: { parts: [{ text: "hmm", thought: true }] } }], responseId: "r1" }),
        dataEvent({ ...text("42", { finishReason: "STOP" }), responseId: "r2" }),
      ]),
    );
    expect(chunks.map((chunk) => chunk.id)).toEqual(["chatcmpl-r1", "chatcmpl-r1"]);
    expect(accumulate(chunks).message).toEqual({ role: "assistant", refusal: null, reasoning: "hmm", content: "42" });
  });

  it("a blocked prompt streams one content_filter choice and completes", () => {
    const items = translate([
      dataEvent({ promptFeedback: { blockReason: "SAFETY" }, usageMetadata: { promptTokenCount: 5, totalTokenCount: 5 } }),
    ]);
    expect(items.map((item) => item.kind)).toEqual(["chunk", "chunk", "done"]);
    expect(chunksOf(items)[0]!.choices).toEqual([
      { index: 0, delta: { role: "assistant", content: null, refusal: null }, finish_reason: "content_filter", logprobs: null },
    ]);
    expect(accumulate(chunksOf(items))).toEqual(
      wholeAnswer({ promptFeedback: { blockReason: "SAFETY" }, usageMetadata: { promptTokenCount: 5, totalTokenCount: 5 } }),
    );
  });

  it("tool calls over several events keep counting indexes, and MAX_TOKENS with calls is still length", () => {
    const call = (name: string) => ({ candidates: [{ content: { parts: [{ functionCall: { name, args: {} } }] } }] });
    const chunks = chunksOf(
      translate([
        dataEvent(call("a")),
        dataEvent({
          candidates: [{ content: { parts: [{ functionCall: { name: "b", args: { k: [1] } } }] }, finishReason: "MAX_TOKENS" }],
        }),
      ]),
    );
    expect(
      chunks.map((chunk) =>
        (chunk.choices as { delta: { tool_calls?: { index: number; id: string }[] } }[])[0]?.delta.tool_calls?.map((tool) => [
          tool.index,
          tool.id,
        ]),
      ),
    ).toEqual([[[0, "call_gateway_0"]], [[1, "call_gateway_1"]]]);
    expect(accumulate(chunks).finish_reason).toBe("length");
  });
});
