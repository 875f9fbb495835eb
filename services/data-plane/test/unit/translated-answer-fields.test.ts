// An answer translated from Anthropic or Gemini carries every field OpenAI's live chat answers carry
// (issue 33, item 7): at each level (answer, choice, message; chunk, chunk choice, first delta) the
// keys of the recorded live answer must all be there. OpenAI's schema leaves most of them optional,
// so openai-schema.test.ts alone would not see one go missing; typed clients in other languages do.
// The references: the newest recorded whole answer (openai.chat.cached.response.json, whose envelope
// is a live gpt-4.1-nano answer of 2026) and the recorded live streams (2024).
import { describe, expect, it } from "vitest";
import { AnthropicAdapter } from "../../src/providers/anthropic/anthropic-adapter";
import { GeminiAdapter } from "../../src/providers/gemini/gemini-adapter";
import type { ProviderAdapter, ResponseContext } from "../../src/providers/provider-adapter";
import { SseParser, type SseEvent } from "../../src/upstream/sse-parser";
import { fixtures } from "../support/fixture";

type Json = Record<string, any>;

const context: ResponseContext = { id: "chatcmpl-gateway", created: 1_764_000_000, model: "upstream-model" };

function sseEvents(text: string): SseEvent[] {
  const parser = new SseParser();
  const body = text.endsWith("\n\n") ? text : `${text}\n\n`;
  return [...parser.push(body), ...parser.end()].flatMap((item) => (item.kind === "event" ? [item.event] : []));
}

const chatChunks = (text: string): Json[] =>
  sseEvents(text)
    .filter((event) => event.data !== "[DONE]")
    .map((event) => JSON.parse(event.data) as Json);

/** The keys every one of `objects` has. */
function keysOfAll(objects: Json[]): string[] {
  const [first, ...rest] = objects.map((object) => Object.keys(object));
  return (first ?? []).filter((key) => rest.every((keys) => keys.includes(key))).sort();
}

/** The keys a translated answer must carry, level by level, read from OpenAI's live answers. */
function liveLevels() {
  const whole = fixtures("openai-compatible").json<Json>("openai.chat.cached.response.json");
  const chunks = ["openai.chat.stream.sse", "openai.chat.stream.json_object.sse"].flatMap((file) =>
    chatChunks(fixtures("upstream").text(file)),
  );
  const withChoices = chunks.filter((chunk) => chunk.choices.length > 0);
  return {
    answer: Object.keys(whole).sort(),
    choice: Object.keys(whole.choices[0]).sort(),
    message: Object.keys(whole.choices[0].message).sort(),
    chunk: keysOfAll(chunks),
    chunkChoice: keysOfAll(withChoices.flatMap((chunk) => chunk.choices)),
    firstDelta: keysOfAll(
      withChoices
        .flatMap((chunk) => chunk.choices)
        .filter((choice: Json) => choice.delta.role !== undefined)
        .map((choice: Json) => choice.delta),
    ),
  };
}

const missing = (required: string[], object: Json) => required.filter((key) => !(key in object));

const CASES: { name: string; adapter: ProviderAdapter; whole: () => unknown; stream: () => string }[] = [
  {
    name: "Gemini, text",
    adapter: new GeminiAdapter(),
    whole: () => fixtures("gemini").json("gemini.generateContent.response.json"),
    stream: () => fixtures("gemini").text("gemini.streamGenerateContent.sse"),
  },
  {
    name: "Gemini, tool calls",
    adapter: new GeminiAdapter(),
    whole: () => fixtures("gemini").json("gemini.generateContent.tools.response.json"),
    stream: () => fixtures("gemini").text("gemini.streamGenerateContent.tools.sse"),
  },
  {
    name: "Anthropic, text",
    adapter: new AnthropicAdapter(),
    whole: () => fixtures("anthropic").json("anthropic.messages.response.json"),
    stream: () => fixtures("anthropic").text("anthropic.messages.stream.sse"),
  },
  {
    name: "Anthropic, a tool call",
    adapter: new AnthropicAdapter(),
    whole: () => fixtures("anthropic").json("anthropic.messages.tools.response.json"),
    stream: () => fixtures("anthropic").text("anthropic.messages.stream.tools.sse"),
  },
];

describe("translated chat answers carry every field OpenAI's live answers carry", () => {
  const live = liveLevels();

  it("the live answers name the fields clients rely on", () => {
    expect(live.message).toEqual(expect.arrayContaining(["refusal", "annotations"]));
    expect(live.choice).toContain("logprobs");
    expect(live.answer).toEqual(expect.arrayContaining(["service_tier", "system_fingerprint"]));
    expect(live.chunk).toContain("system_fingerprint");
    expect(live.chunkChoice).toContain("logprobs");
    expect(live.firstDelta).toContain("refusal");
  });

  it.each(CASES.map((entry) => [entry.name, entry] as const))("%s: the whole answer", (_name, entry) => {
    const answer = entry.adapter.response("chat", entry.whole(), context) as Json;
    expect(missing(live.answer, answer)).toEqual([]);
    for (const choice of answer.choices) {
      expect(missing(live.choice, choice)).toEqual([]);
      expect(missing(live.message, choice.message)).toEqual([]);
      expect(choice.message.refusal).toBeNull();
    }
  });

  it.each(CASES.map((entry) => [entry.name, entry] as const))("%s: the stream's chunks", (_name, entry) => {
    const translator = entry.adapter.stream(context);
    const items = [...sseEvents(entry.stream()).flatMap((event) => translator.push(event)), ...translator.end()];
    const chunks = items.flatMap((item) => (item.kind === "chunk" ? [item.chunk as Json] : []));
    expect(chunks.length).toBeGreaterThan(1);
    for (const chunk of chunks) {
      expect(missing(live.chunk, chunk)).toEqual([]);
      for (const choice of chunk.choices) expect(missing(live.chunkChoice, choice)).toEqual([]);
    }
    const opening = chunks.flatMap((chunk) => chunk.choices).filter((choice: Json) => choice.delta.role !== undefined);
    expect(opening.length).toBeGreaterThan(0);
    for (const choice of opening) expect(missing(live.firstDelta, choice.delta)).toEqual([]);
    // One answer, one fingerprint: every chunk names the same backend.
    expect(new Set(chunks.map((chunk) => chunk.system_fingerprint)).size).toBe(1);
  });
});
