// Claude on Bedrock through InvokeModel: the Anthropic codec's body in Bedrock's
// form, the native Messages codec, and the real recorded
// InvokeModelWithResponseStream body (120 `chunk` frames) through the AWS
// event-stream parser and the translator; errors by their names.
import { describe, expect, it } from "vitest";
import { bedrockAccess } from "../../src/providers/bedrock/bedrock-access";
import { effectiveStatus } from "../../src/errors";
import { classifyBedrockError } from "../../src/providers/bedrock/classify-bedrock-error";
import { StreamDecoder } from "../../src/engine/answer-decoders";
import type { ResponseContext, StreamItem, StreamTranslator } from "../../src/providers/provider-adapter";
import type { ProviderConfig } from "../../src/providers/provider-config";
import type { SseEvent } from "../../src/upstream/sse-parser";
import { fixtures } from "../support/fixture";

const recorded = fixtures("bedrock");
const CLAUDE = "us.anthropic.claude-sonnet-4-20250514-v1:0";
const config: ProviderConfig = {
  name: "bedrock",
  baseUrl: "https://bedrock-runtime.us-east-1.amazonaws.com",
  protocol: "bedrock",
  extraFields: [],
  responsesApi: false,
  cloud: { region: "us-east-1", apiKey: "bedrock-api-key-test" },
};
const access = bedrockAccess(config, () => {});
const adapter = access.adapterFor(CLAUDE);
const context: ResponseContext = { id: "chatcmpl-test", created: 1_700_000_000, model: CLAUDE };
const requestContext = {
  upstreamModel: CLAUDE,
  apiKey: "never-sent",
  maxOutputTokens: 4096,
  clientHeaders: { "anthropic-beta": "a-1, b-2" },
};

/** A binary body through the engine's stream decoder, 1000 bytes at a time: the events relayed (unwrapped) and the items. */
function replay(bytes: Uint8Array, translator: StreamTranslator): { events: SseEvent[]; items: StreamItem[] } {
  const decoder = new StreamDecoder(translator, 1 << 20);
  const events: SseEvent[] = [];
  const items: StreamItem[] = [];
  for (let at = 0; at < bytes.length; at += 1000)
    for (const group of decoder.push(Buffer.from(bytes.subarray(at, at + 1000)))) {
      events.push(group.event!);
      items.push(...(group.items as StreamItem[]));
    }
  items.push(...(decoder.end() as StreamItem[]));
  return { events, items };
}

describe("model ids", () => {
  it("routes Claude ids and ARNs to InvokeModel, the others to Converse, and encodes the id as one path segment", () => {
    for (const id of [
      "anthropic.claude-3-haiku-20240307-v1:0",
      "eu.anthropic.claude-sonnet-4-6",
      "global.anthropic.claude-opus-4-1",
      "arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/abc123",
    ])
      expect(access.adapterFor(id)).toBe(adapter);
    for (const id of [
      "amazon.nova-lite-v1:0",
      "us.meta.llama3-3-70b-instruct-v1:0",
      "mistral.mistral-large-2407-v1:0",
      "arn:aws:bedrock:us-east-1::foundation-model/amazon.nova-pro-v1:0",
    ])
      expect(access.adapterFor(id)).not.toBe(adapter);
    const arn = "arn:aws:bedrock:us-east-1:123456789012:inference-profile/us.anthropic.claude-sonnet-4-20250514-v1:0";
    const call = adapter.request("chat", { messages: [{ role: "user", content: "hi" }] }, { ...requestContext, upstreamModel: arn });
    expect(call.path).toBe(
      "/model/arn%3Aaws%3Abedrock%3Aus-east-1%3A123456789012%3Ainference-profile%2Fus.anthropic.claude-sonnet-4-20250514-v1%3A0/invoke",
    );
  });

  it("offers embeddings only on Titan and Cohere embedding models", () => {
    expect(access.adapterFor("amazon.titan-embed-text-v2:0").supports("embeddings")).toBe(true);
    expect(access.adapterFor("cohere.embed-english-v3").supports("embeddings")).toBe(true);
    expect(access.adapterFor("amazon.nova-lite-v1:0").supports("embeddings")).toBe(false);
    expect(adapter.supports("embeddings")).toBe(false);
  });
});

describe("InvokeModel with the Anthropic body", () => {
  it("is the Anthropic codec's body without model and stream, with Bedrock's version, and no Anthropic key", () => {
    const call = adapter.request("chat", { messages: [{ role: "user", content: "hi" }], max_tokens: 50, stream: true }, requestContext);
    expect(call.path).toBe("/model/us.anthropic.claude-sonnet-4-20250514-v1%3A0/invoke-with-response-stream");
    expect(call.headers).toEqual({
      "content-type": "application/json",
      accept: "application/vnd.amazon.eventstream",
      "x-amzn-bedrock-accept": "application/json",
    });
    expect(JSON.parse(call.body)).toEqual({
      anthropic_version: "bedrock-2023-05-31",
      max_tokens: 50,
      messages: [{ role: "user", content: "hi" }],
    });
  });

  it("native Messages: the client's body passes with the version added and its beta header moved into anthropic_beta", () => {
    const codec = adapter.native("anthropic-messages");
    expect(codec).toBeDefined();
    const call = codec!.call(
      { model: "claude", max_tokens: 10, messages: [{ role: "user", content: "hi" }], container: "x", top_k: 3 },
      requestContext,
      8,
    );
    expect(call.path).toBe("/model/us.anthropic.claude-sonnet-4-20250514-v1%3A0/invoke");
    expect(JSON.parse(call.body)).toEqual({
      anthropic_version: "bedrock-2023-05-31",
      max_tokens: 8,
      messages: [{ role: "user", content: "hi" }],
      top_k: 3,
      anthropic_beta: ["a-1", "b-2"],
    });
    expect(call.headers["anthropic-beta"]).toBeUndefined();
  });

  it("reads the recorded whole answer with the Anthropic codec", () => {
    const json = recorded.json("bedrock.invoke.anthropic.response.json");
    const answer = adapter.response("chat", json, context) as any;
    expect(answer.id).toMatch(/^msg_bdrk_/);
    // The recorded usage: input_tokens 10, no cache reads or writes, output_tokens 18.
    expect(adapter.usage("chat", json)).toMatchObject({ inputTokens: 10, cachedInputTokens: 0, outputTokens: 18 });
    expect(answer.usage).toMatchObject({ prompt_tokens: 10, completion_tokens: 18 });
  });
});

describe("InvokeModelWithResponseStream (the real recorded body)", () => {
  const bytes = recorded.bytes("bedrock.invoke-stream.anthropic.bin");

  it("translates the 120 chunk frames: the whole text, end_turn, usage 17 in / 322 out, done", () => {
    const translator = adapter.stream(context);
    expect(translator.framing).toBe("aws-eventstream");
    const { events, items } = replay(bytes, translator);
    expect(events).toHaveLength(120);
    const chunks = items.flatMap((item) => (item.kind === "chunk" ? [item.chunk as any] : []));
    const text = chunks.flatMap((chunk) => chunk.choices.map((choice: any) => choice.delta.content ?? "")).join("");
    expect(text).toHaveLength(1558);
    expect(text.startsWith("Hello! Cache tokens are a feature")).toBe(true);
    expect(chunks.flatMap((chunk) => chunk.choices.map((choice: any) => choice.finish_reason)).filter(Boolean)).toEqual(["stop"]);
    const usage = items.find((item) => item.kind === "chunk" && item.usage);
    expect(usage).toMatchObject({ usage: { inputTokens: 17, cachedInputTokens: 0, outputTokens: 322 } });
    expect(items.at(-1)).toEqual({ kind: "done" });
  });

  it("hands a native Messages client the inner Anthropic events, named by their type", () => {
    const translator = adapter.native("anthropic-messages")!.stream(context);
    const { events } = replay(bytes, translator);
    expect(events[0]!.event).toBe("message_start");
    expect(JSON.parse(events[0]!.data).message.id).toMatch(/^msg_bdrk_/);
    expect(events.at(-1)!.event).toBe("message_stop");
    expect(JSON.parse(events.at(-1)!.data)["amazon-bedrock-invocationMetrics"]).toMatchObject({
      inputTokenCount: 17,
      outputTokenCount: 322,
    });
  });

  it("ends with an error on an exception frame (recorded modelStreamErrorException), and a bad chunk is malformed", () => {
    const translator = adapter.stream(context);
    const { items } = replay(recorded.bytes("bedrock.converse-stream.exception.modelStreamError.bin"), translator);
    expect(items).toEqual([{ kind: "error", category: undefined }]);
    expect(adapter.stream(context).push({ event: "chunk", data: '{"bytes":"bm90IGpzb24="}', id: undefined })).toEqual([
      { kind: "malformed", lost: true },
    ]);
  });
});

describe("errors, by name only", () => {
  it("reads the x-amzn-errortype header (before the colon), else the body's __type (after #)", () => {
    const validation = recorded.json<{ headers: Record<string, string>; body: unknown }>("bedrock.error.400.validation.recorded.json");
    expect(classifyBedrockError(validation.body, validation.headers)).toBeUndefined();
    const throttling = recorded.json<Record<string, string>>("bedrock.error.429.throttling.headers.json");
    const headers = { "x-amzn-errortype": throttling["x-amzn-ErrorType"] };
    expect(classifyBedrockError(recorded.json("bedrock.error.429.throttling.json"), headers)).toBeUndefined();
    const notFound = { "x-amzn-errortype": "ResourceNotFoundException:http://internal.amazon.com/coral/com.amazon.bedrock/" };
    expect(classifyBedrockError(recorded.json("bedrock.error.404.model_not_found.json"), notFound)).toBe("model_not_found");
    expect(adapter.classifyError({ __type: "com.amazon.bedrock#ResourceNotFoundException", message: "x" })).toBe("model_not_found");
    expect(adapter.classifyError(recorded.json("bedrock.error.404.unknown_operation.json"))).toBeUndefined();
    // The message text never decides.
    expect(adapter.classifyError({ message: "Model not found." })).toBeUndefined();
  });

  it("a provider's own failure under a request-like status is acted on as what it is: the quota as a 429, a model timeout as a 502", () => {
    const named = (name: string) => ({ "x-amzn-errortype": `${name}:http://internal.amazon.com/coral/com.amazon.bedrock/` });
    const quota = classifyBedrockError({ message: "quota" }, named("ServiceQuotaExceededException"));
    expect(quota).toBe("quota_exceeded");
    expect(effectiveStatus(400, quota)).toBe(429);
    for (const [name, status] of [
      ["ModelTimeoutException", 408],
      ["ModelErrorException", 424],
    ] as const) {
      const category = classifyBedrockError({}, named(name));
      expect(category).toBe("provider_failed");
      expect(effectiveStatus(status, category)).toBe(502);
    }
    expect(effectiveStatus(400, undefined)).toBe(400);
    expect(effectiveStatus(503, "provider_failed")).toBe(503);
  });
});
