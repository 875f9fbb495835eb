// AzureOpenAiAdapter, answers: Azure's recorded bodies and streams. An OpenAI
// chat client (the native codec) gets them as Azure sent them, content-filter
// verdicts and the stream's empty announcement chunk included; a translated
// client's answer (adapter.response / adapter.stream) never sees them. Usage
// is read into the one record either way.
import { fixtures } from "../support/fixture";
import { describe, expect, it } from "vitest";
import { AzureOpenAiAdapter } from "../../src/providers/azure/azure-openai-adapter";
import type { ResponseContext, StreamItem, StreamTranslator } from "../../src/providers/provider-adapter";
import { type SseEvent, SseParser } from "../../src/upstream/sse-parser";

const recorded = fixtures("azure");
const text = (file: string) => recorded.text(file);
const json = (file: string) => JSON.parse(text(file)) as Record<string, any>;

const context: ResponseContext = { id: "chatcmpl-gateway", created: 1_790_000_000, model: "gpt-4.1" };
const adapter = new AzureOpenAiAdapter({ apiForm: "v1", apiVersion: "2024-10-21", apiKey: "k" });

function events(sse: string): SseEvent[] {
  const parser = new SseParser();
  return [...parser.push(sse), ...parser.end()].flatMap((item) => (item.kind === "event" ? [item.event] : []));
}
const run = (translator: StreamTranslator, all: SseEvent[]): StreamItem[] => [
  ...all.flatMap((e) => translator.push(e)),
  ...translator.end(),
];
const chunks = (items: StreamItem[]) => items.flatMap((item) => (item.kind === "chunk" ? [item.chunk as Record<string, any>] : []));
const content = (items: StreamItem[]) =>
  chunks(items)
    .map((chunk) => chunk.choices?.[0]?.delta?.content ?? "")
    .join("");

/** A usage-only chunk as Azure sends it after the finish chunk with `stream_options.include_usage` (not recorded: shape per OpenAI's). */
const usageEvent = (usage: Record<string, unknown>): SseEvent => ({
  event: "message",
  id: undefined,
  data: JSON.stringify({
    choices: [],
    created: 1757173664,
    id: "chatcmpl-CCpQezimv18JiN1wi7awtmRfkaFTS",
    model: "gpt-4.1-2025-04-14",
    object: "chat.completion.chunk",
    usage,
  }),
});

describe("whole chat answers", () => {
  it("relay Azure's answer as it came to an OpenAI chat client, verdicts included", () => {
    const body = json("azure.chat.response.json");
    const native = adapter.native("openai-chat")!;
    expect(native.response(body, context)).toEqual(body);
    expect(native.usage(body)).toEqual({
      inputTokens: 13,
      cachedInputTokens: 0,
      audioInputTokens: 0,
      outputTokens: 30,
      reasoningTokens: 0,
      audioOutputTokens: 0,
    });
  });

  it("reach a translated client without the verdicts, the rest untouched", () => {
    for (const file of ["azure.chat.response.json", "azure.chat.response.empty_prompt_filter.json"]) {
      const body = json(file);
      const answer = adapter.response("chat", body, context) as Record<string, any>;
      expect(answer.prompt_filter_results).toBeUndefined();
      expect(answer.choices[0].content_filter_results).toBeUndefined();
      expect(answer.choices[0].message).toEqual(body.choices[0].message);
      expect({ id: answer.id, model: answer.model, usage: answer.usage }).toEqual({ id: body.id, model: body.model, usage: body.usage });
      expect(body.prompt_filter_results).toBeDefined(); // the upstream's object is not changed
    }
    expect(adapter.usage("chat", json("azure.chat.response.empty_prompt_filter.json"))).toMatchObject({
      inputTokens: 61,
      outputTokens: 92,
    });
  });
});

describe("streams", () => {
  const recorded = events(text("azure.chat.stream.sse"));

  it("relay every chunk to an OpenAI chat client, the empty announcement chunk first", () => {
    const items = run(adapter.native("openai-chat")!.stream(context), recorded);
    const relayed = chunks(items);
    expect(relayed).toHaveLength(recorded.length - 1); // all but [DONE]
    expect(relayed[0]).toEqual(JSON.parse(recorded[0]!.data));
    expect(relayed[0]).toMatchObject({ choices: [], id: "", model: "", created: 0, object: "" });
    expect(relayed[2]!.choices[0].content_filter_results).toBeDefined();
    expect(items.at(-1)).toEqual({ kind: "done" });
  });

  it("reach a translated client without the announcement chunk or any verdict", () => {
    const items = run(adapter.stream(context), recorded);
    const translated = chunks(items);
    expect(translated).toHaveLength(recorded.length - 2);
    for (const chunk of translated) {
      expect(chunk.id).toBe("chatcmpl-CCpQezimv18JiN1wi7awtmRfkaFTS");
      expect(chunk.model).toBe("gpt-4.1-2025-04-14");
      expect(chunk.prompt_filter_results).toBeUndefined();
      expect(chunk.choices[0].content_filter_results).toBeUndefined();
    }
    expect(content(items)).toBe(content(run(adapter.native("openai-chat")!.stream(context), recorded)));
    expect(translated.at(-1)!.choices[0].finish_reason).toBe("stop");
    expect(items.at(-1)).toEqual({ kind: "done" });
  });

  it("read the usage chunk into the one record, for both kinds of client", () => {
    const usage = { completion_tokens: 30, prompt_tokens: 13, total_tokens: 43, prompt_tokens_details: { cached_tokens: 8 } };
    const withUsage = [...recorded.slice(0, -1), usageEvent(usage), recorded.at(-1)!];
    for (const translator of [adapter.stream(context), adapter.native("openai-chat")!.stream(context)]) {
      const items = run(translator, withUsage);
      const metered = items.filter((item) => item.kind === "chunk" && item.usage);
      expect(metered).toHaveLength(1);
      expect(metered[0]).toMatchObject({ usage: { inputTokens: 13, cachedInputTokens: 8, outputTokens: 30 } });
    }
  });

  it("carry protected-material verdicts and a content_filter stop through as OpenAI's finish reason", () => {
    // The recording ends with "stop"; a filtered completion ends the same way with "content_filter" (no such recording exists).
    const sse = text("azure.chat.stream.protected_material.sse").replace('"finish_reason":"stop"', '"finish_reason":"content_filter"');
    const native = chunks(run(adapter.native("openai-chat")!.stream(context), events(sse)));
    expect(native[2]!.choices[0].content_filter_results.protected_material_text).toEqual({ filtered: false, detected: false });
    expect(native.at(-1)!.choices[0].finish_reason).toBe("content_filter");
    const items = run(adapter.stream(context), events(sse));
    expect(content(items)).toBe("Hello! How can I assist you today?");
    expect(chunks(items).at(-1)!.choices[0]).toEqual({ delta: {}, finish_reason: "content_filter", index: 0, logprobs: null });
  });

  it("end as failed on an error event, classified by its code", () => {
    const error = { event: "message", id: undefined, data: JSON.stringify(json("azure.error.400.content_filter.json")) };
    expect(run(adapter.stream(context), [recorded[0]!, error])).toEqual([{ kind: "error", category: "content_policy" }]);
  });
});

describe("embeddings", () => {
  it("pass through with their usage", () => {
    const body = json("azure.embeddings.response.json");
    expect(adapter.response("embeddings", body, context)).toEqual(body);
    expect(adapter.native("openai-embeddings")!.response(body, context)).toEqual(body);
    expect(adapter.usage("embeddings", body)).toEqual({ inputTokens: 4, outputTokens: 0 });
  });
});

describe("the v1 Responses API", () => {
  it("reads Azure's Response (content_filters and all) for the meter", () => {
    const body = json("azure.v1.responses.response.json");
    const codec = adapter.native("openai-responses")!;
    const usage = codec.usage(body)!;
    expect(usage.inputTokens).toBe(body.usage.input_tokens);
    expect(usage.outputTokens).toBe(body.usage.output_tokens);
    const answer = codec.response(body, context) as Record<string, any>;
    expect(answer.choices[0].message.content).toBe(body.output.find((item: any) => item.type === "message").content[0].text);
  });
});
