// The Bedrock persona's answers (called with a Bedrock API key; signatures are
// bedrock-auth.test.ts's): Converse and InvokeModel bodies from the recordings,
// binary event streams decoded here with @smithy's EventStreamCodec (which checks
// both CRCs of every message), usage in Bedrock's fields, scripted errors with their
// x-amzn-ErrorType, and exceptions in the middle of a stream.
import { EventStreamCodec } from "@smithy/core/event-streams";
import { fromUtf8, toUtf8 } from "@smithy/util-utf8";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fixtureJson, fixtureText, type Json, type Mock, startMock } from "./helpers";

const KEY = { authorization: "Bearer bedrock-api-key-mock", "content-type": "application/json" };
const CLAUDE = "anthropic.claude-sonnet-4-20250514-v1:0";
const USER_TEXT = { messages: [{ role: "user", content: [{ text: "Reply with exactly OK." }] }] };
const TOOLS = {
  ...USER_TEXT,
  toolConfig: { tools: [{ toolSpec: { name: "report_result", inputSchema: { json: { type: "object" } } } }] },
};
const INVOKE = { anthropic_version: "bedrock-2023-05-31", max_tokens: 50, messages: [{ role: "user", content: "Hello" }] };
const BEDROCK_NS = "http://internal.amazon.com/coral/com.amazon.bedrock/";

let mock: Mock;
beforeAll(async () => {
  mock = await startMock();
});
afterAll(() => mock.close());

const path = (modelId: string, operation: string) => `/bedrock/model/${encodeURIComponent(modelId)}/${operation}`;
const call = (modelId: string, operation: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(mock.url + path(modelId, operation), { method: "POST", headers: { ...KEY, ...headers }, body: JSON.stringify(body) });
const script = (value: unknown) => ({ "x-mock-script": JSON.stringify(value) });

interface Message {
  headers: [string, string][];
  body: string;
}

/** Every message of an event-stream body; decode() throws on a bad CRC. */
function decode(bytes: Uint8Array): Message[] {
  const codec = new EventStreamCodec(toUtf8, fromUtf8);
  const messages: Message[] = [];
  for (let offset = 0; offset < bytes.length; ) {
    const total = new DataView(bytes.buffer, bytes.byteOffset + offset, 4).getUint32(0);
    const message = codec.decode(bytes.subarray(offset, offset + total));
    messages.push({
      headers: Object.entries(message.headers).map(([name, header]) => [name, String(header.value)]),
      body: toUtf8(message.body),
    });
    offset += total;
  }
  return messages;
}

const streamOf = async (response: Response) => decode(new Uint8Array(await response.arrayBuffer()));
const eventTypes = (messages: Message[]) => messages.map((message) => message.headers[0]![1]);
const payloads = (messages: Message[]) => messages.map((message) => JSON.parse(message.body) as Json);
const isSorted = (value: unknown): boolean =>
  Array.isArray(value)
    ? value.every(isSorted)
    : typeof value === "object" && value !== null
      ? Object.keys(value).join() === Object.keys(value).sort().join() && Object.values(value).every(isSorted)
      : true;

describe("Converse", () => {
  it("answers a text request with the recorded Converse body, keys in Bedrock's alphabetical order", async () => {
    const response = await call(CLAUDE, "converse", USER_TEXT);
    expect(response.status).toBe(200);
    expect(response.headers.get("x-amzn-requestid")).toMatch(/^[0-9a-f-]{36}$/);
    expect(await response.text()).toBe(JSON.stringify(fixtureJson("bedrock.converse.response.json")));
  });

  it("answers with a toolUse (tooluse_ id) when the request offers tools, and in text once results come back", async () => {
    const tools = (await (await call(CLAUDE, "converse", TOOLS)).json()) as Json;
    expect(tools).toEqual(fixtureJson("bedrock.converse.tools.response.json"));
    expect(tools.output.message.content[0].toolUse.toolUseId).toMatch(/^tooluse_/);
    const result = {
      ...TOOLS,
      messages: [
        ...TOOLS.messages,
        { role: "assistant", content: [{ toolUse: tools.output.message.content[0].toolUse }] },
        { role: "user", content: [{ toolResult: { toolUseId: "tooluse_Ru34XPGTGs2bBXFsZqCHgo", content: [{ json: { ok: true } }] } }] },
      ],
    };
    expect(((await (await call(CLAUDE, "converse", result)).json()) as Json).stopReason).toBe("end_turn");
  });

  it("puts scripted usage into Bedrock's fields: inputTokens excludes the cache, legacy twins, totalTokens sums all", async () => {
    const usage = { prompt_tokens: 3, completion_tokens: 401, cache_creation_tokens: 1789 };
    const response = (await (await call(CLAUDE, "converse", USER_TEXT, script({ usage }))).json()) as Json;
    // The figures of the cache-write reference body (bedrock.converse.cache_write.response.json).
    expect(response.usage).toEqual(fixtureJson("bedrock.converse.cache_write.response.json").usage);
    const withReads = (await (
      await call(
        CLAUDE,
        "converse",
        USER_TEXT,
        script({
          usage: { prompt_tokens: 10, completion_tokens: 5, cached_tokens: 100, cache_creation_1h_tokens: 7, service_tier: "priority" },
        }),
      )
    ).json()) as Json;
    expect(withReads.usage).toMatchObject({
      inputTokens: 10,
      outputTokens: 5,
      cacheReadInputTokens: 100,
      cacheReadInputTokenCount: 100,
      cacheWriteInputTokens: 7,
      cacheWriteInputTokenCount: 7,
      cacheDetails: [
        { inputTokens: 7, ttl: "1h" },
        { inputTokens: 0, ttl: "5m" },
      ],
      totalTokens: 122,
    });
    expect(withReads.serviceTier).toEqual({ type: "priority" });
    expect(isSorted(withReads)).toBe(true);
  });

  it("refuses an empty conversation and an embedding model with ValidationException", async () => {
    const empty = await call(CLAUDE, "converse", { messages: [] });
    expect(empty.status).toBe(400);
    expect(empty.headers.get("x-amzn-errortype")).toBe(`ValidationException:${BEDROCK_NS}`);
    const embedder = await call("amazon.titan-embed-text-v2:0", "converse", USER_TEXT);
    expect(embedder.status).toBe(400);
    expect(((await embedder.json()) as Json).message).toMatch(/^This action doesn't support the model/);
  });
});

describe("ConverseStream", () => {
  it("replays the recorded event stream byte for byte: valid CRCs, no contentBlockStart for text, metadata last", async () => {
    const response = await call("eu.anthropic.claude-sonnet-4-6", "converse-stream", USER_TEXT);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/vnd.amazon.eventstream");
    const bytes = new Uint8Array(await response.arrayBuffer());
    const recorded = readFileSync(fileURLToPath(new URL("../fixtures/bedrock.converse-stream.bin", import.meta.url)));
    expect(Buffer.from(bytes).equals(recorded)).toBe(true);
    const messages = decode(bytes);
    expect(eventTypes(messages)).toEqual([
      "messageStart",
      "contentBlockDelta",
      "contentBlockDelta",
      "contentBlockStop",
      "messageStop",
      "metadata",
    ]);
    for (const message of messages) {
      expect(message.headers.map(([name]) => name)).toEqual([":event-type", ":content-type", ":message-type"]);
      expect(message.headers.slice(1)).toEqual([
        [":content-type", "application/json"],
        [":message-type", "event"],
      ]);
    }
  });

  it("carries scripted usage in the last event, metadata, with a fresh padding", async () => {
    const usage = { prompt_tokens: 20, completion_tokens: 7, cached_tokens: 30 };
    const messages = await streamOf(await call(CLAUDE, "converse-stream", USER_TEXT, script({ usage })));
    const metadata = payloads(messages).at(-1)!;
    expect(eventTypes(messages).at(-1)).toBe("metadata");
    expect(metadata.usage).toEqual({
      cacheReadInputTokenCount: 30,
      cacheReadInputTokens: 30,
      inputTokens: 20,
      outputTokens: 7,
      serverToolUsage: {},
      totalTokens: 57,
    });
    expect(metadata.p).toMatch(/^abcdefghij/);
    expect(Object.keys(metadata)).toEqual(["metrics", "p", "usage"]);
  });

  it("streams a tool call: contentBlockStart with the toolUse, input as JSON fragments, stop tool_use", async () => {
    const messages = await streamOf(await call(CLAUDE, "converse-stream", TOOLS));
    expect(eventTypes(messages)).toEqual([
      "messageStart",
      "contentBlockStart",
      "contentBlockDelta",
      "contentBlockDelta",
      "contentBlockStop",
      "messageStop",
      "metadata",
    ]);
    const events = payloads(messages);
    expect(events[1]!.start).toEqual({ toolUse: { name: "report_result", toolUseId: "tooluse_Ru34XPGTGs2bBXFsZqCHgo" } });
    const input = events
      .slice(2, 4)
      .map((event) => event.delta.toolUse.input as string)
      .join("");
    expect(JSON.parse(input)).toEqual({ value: "ok" });
    expect(events[5]!.stopReason).toBe("tool_use");
    for (const event of events) expect(typeof event.p).toBe("string");
  });
});

describe("InvokeModel (Claude)", () => {
  it("answers an Anthropic Message with a msg_bdrk_ id, the Anthropic model name and token headers", async () => {
    const response = await call(
      CLAUDE,
      "invoke",
      INVOKE,
      script({ usage: { prompt_tokens: 11, completion_tokens: 22, cached_tokens: 33 } }),
    );
    expect(response.status).toBe(200);
    const message = (await response.json()) as Json;
    const recorded = fixtureJson("bedrock.invoke.anthropic.response.json");
    expect(message.id).toMatch(/^msg_bdrk_/);
    expect(message.model).toBe("claude-sonnet-4-20250514");
    expect(message.content).toEqual(recorded.content);
    expect(message.usage).toMatchObject({ input_tokens: 11, output_tokens: 22, cache_read_input_tokens: 33 });
    expect(response.headers.get("x-amzn-bedrock-input-token-count")).toBe("11");
    expect(response.headers.get("x-amzn-bedrock-output-token-count")).toBe("22");
    expect(response.headers.get("x-amzn-bedrock-cache-read-input-token-count")).toBe("33");
  });

  it("answers Anthropic's tool_use Message when the body has tools", async () => {
    const body = { ...INVOKE, tools: [{ name: "get_weather", input_schema: { type: "object" } }] };
    const message = (await (await call(CLAUDE, "invoke", body)).json()) as Json;
    expect(message.stop_reason).toBe("tool_use");
  });

  it.each([
    [
      { ...INVOKE, anthropic_version: undefined },
      "Malformed input request: #: required key [anthropic_version] not found, please reformat your input and try again.",
    ],
    [
      { ...INVOKE, model: "claude" },
      "Malformed input request: #: extraneous key [model] is not permitted, please reformat your input and try again.",
    ],
  ])("refuses a body Bedrock refuses with 400 ValidationException", async (body, message) => {
    const response = await call(CLAUDE, "invoke", body);
    expect(response.status).toBe(400);
    expect(response.headers.get("x-amzn-errortype")).toBe(`ValidationException:${BEDROCK_NS}`);
    expect(await response.json()).toEqual({ message });
  });
});

describe("InvokeModelWithResponseStream (Claude)", () => {
  it("sends each Anthropic event as a chunk {bytes, p}, no ping, message_stop last with the invocation metrics", async () => {
    const response = await call(
      CLAUDE,
      "invoke-with-response-stream",
      INVOKE,
      script({ usage: { prompt_tokens: 9, completion_tokens: 4 } }),
    );
    expect(response.headers.get("content-type")).toBe("application/vnd.amazon.eventstream");
    expect(response.headers.get("x-amzn-bedrock-content-type")).toBe("application/json");
    const messages = await streamOf(response);
    expect(new Set(eventTypes(messages))).toEqual(new Set(["chunk"]));
    const inner = payloads(messages).map((payload) => {
      expect(Object.keys(payload)).toEqual(["bytes", "p"]);
      return JSON.parse(Buffer.from(payload.bytes as string, "base64").toString()) as Json;
    });
    expect(inner.map((event) => event.type)).toEqual(
      fixtureText("bedrock.invoke-stream.anthropic.jsonl")
        .trim()
        .split("\n")
        .map((line) => (JSON.parse(line) as Json).type),
    );
    expect(inner.some((event) => event.type === "ping")).toBe(false);
    expect(inner[0]!.message.id).toMatch(/^msg_bdrk_/);
    expect(inner.at(-1)).toEqual({
      type: "message_stop",
      "amazon-bedrock-invocationMetrics": { inputTokenCount: 9, outputTokenCount: 4, invocationLatency: 7881, firstByteLatency: 1145 },
    });
  });

  it("streams Anthropic's tool-use events (pings dropped) for a body with tools", async () => {
    const body = { ...INVOKE, tools: [{ name: "get_weather", input_schema: { type: "object" } }] };
    const inner = payloads(await streamOf(await call(CLAUDE, "invoke-with-response-stream", body))).map(
      (payload) => JSON.parse(Buffer.from(payload.bytes as string, "base64").toString()) as Json,
    );
    expect(inner.some((event) => event.content_block?.type === "tool_use")).toBe(true);
    expect(inner.some((event) => event.type === "ping")).toBe(false);
    expect(inner.at(-1)!["amazon-bedrock-invocationMetrics"]).toMatchObject({ inputTokenCount: expect.any(Number) });
  });
});

describe("embeddings through InvokeModel", () => {
  it("Titan: {inputText} -> {embedding, inputTextTokenCount}, 1024 floats or the dimensions asked", async () => {
    const titan = (await (await call("amazon.titan-embed-text-v2:0", "invoke", { inputText: "hello world" })).json()) as Json;
    expect(Object.keys(titan)).toEqual(["embedding", "inputTextTokenCount"]);
    expect(titan.embedding).toHaveLength(1024);
    expect(titan.inputTextTokenCount).toBe(3);
    const small = await call(
      "amazon.titan-embed-text-v2:0",
      "invoke",
      { inputText: "hello world", dimensions: 256 },
      script({ usage: { prompt_tokens: 42 } }),
    );
    expect(small.headers.get("x-amzn-bedrock-input-token-count")).toBe("42");
    const body = (await small.json()) as Json;
    expect(body.embedding).toHaveLength(256);
    expect(body.inputTextTokenCount).toBe(42);
    expect((await call("amazon.titan-embed-text-v2:0", "invoke", { texts: ["x"] })).status).toBe(400);
  });

  it("Cohere: {texts, input_type} -> {embeddings, id, response_type, texts}", async () => {
    const response = await call("cohere.embed-english-v3", "invoke", { texts: ["a", "b"], input_type: "search_document" });
    const cohere = (await response.json()) as Json;
    expect(Object.keys(cohere)).toEqual(["embeddings", "id", "response_type", "texts"]);
    expect(cohere.response_type).toBe("embeddings_floats");
    expect(cohere.texts).toEqual(["a", "b"]);
    expect(cohere.embeddings).toHaveLength(2);
    expect(cohere.embeddings[0]).toHaveLength(1024);
    expect(response.headers.get("x-amzn-bedrock-input-token-count")).toBe("2");
  });
});

describe("scripted errors", () => {
  it("429 ThrottlingException: the recorded body, its x-amzn-ErrorType, no Retry-After", async () => {
    const response = await call(CLAUDE, "converse", USER_TEXT, script({ status: 429 }));
    expect(response.status).toBe(429);
    expect(response.headers.get("x-amzn-errortype")).toBe(`ThrottlingException:${BEDROCK_NS}`);
    expect(response.headers.get("retry-after")).toBeNull();
    expect(await response.text()).toBe(fixtureText("bedrock.error.429.throttling.json"));
  });

  it.each([
    [{ status: 400 }, 400, "ValidationException", "bedrock.error.400.validation.json"],
    [{ status: 403 }, 403, "AccessDeniedException", "bedrock.error.403.access_denied.json"],
    [{ status: 404 }, 404, "ResourceNotFoundException", "bedrock.error.404.model_not_found.json"],
    [{ status: 503 }, 503, "ServiceUnavailableException", "bedrock.error.503.service_unavailable.json"],
    [{ errorFixture: "bedrock.error.429.model_not_ready" }, 429, "ModelNotReadyException", "bedrock.error.429.model_not_ready.json"],
  ])("%j -> %i %s with its recorded body", async (scripted, status, exception, fixture) => {
    const response = await call(CLAUDE, "invoke", INVOKE, script(scripted));
    expect(response.status).toBe(status);
    expect(response.headers.get("x-amzn-errortype")).toBe(`${exception}:${BEDROCK_NS}`);
    expect(await response.json()).toEqual(fixtureJson(fixture));
  });

  it("answers a path no operation has (an ARN's raw `/`) with UnknownOperationException, consuming no script", async () => {
    mock.app.mock.addScript({ match: "unknown-op-marker", status: 500 });
    const arn = "arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/abc";
    const response = await fetch(`${mock.url}/bedrock/model/${arn}/converse`, {
      method: "POST",
      headers: KEY,
      body: JSON.stringify({ ...USER_TEXT, marker: "unknown-op-marker" }),
    });
    expect(response.status).toBe(404);
    expect(response.headers.get("x-amzn-errortype")).toMatch(/^UnknownOperationException:/);
    expect(await response.json()).toEqual(fixtureJson("bedrock.error.404.unknown_operation.json"));
    expect(mock.app.mock.scripts()).toHaveLength(1);
    mock.app.mock.clearScripts();
    expect(mock.app.mock.lastRequest()?.persona).toBe("bedrock");
  });
});

describe("exceptions in the middle of a stream", () => {
  // As a map: the recorded messages disagree on the order (fixtures/README.md).
  const exceptionHeaders = (type: string) => ({
    ":message-type": "exception",
    ":exception-type": type,
    ":content-type": "application/json",
  });
  const headersOf = (message: Message) => Object.fromEntries(message.headers);

  it.each([
    ["bedrock-throttling-mid-stream", "throttlingException", { message: "Too many tokens, please wait before trying again." }],
    ["bedrock-service-unavailable-mid-stream", "serviceUnavailableException", { message: "Bedrock is unable to process your request." }],
    [
      "bedrock-model-stream-error-mid-stream",
      "modelStreamErrorException",
      { message: "Model Stream Error", originalStatusCode: 500, originalMessage: "The model stream failed." },
    ],
    [
      "error-event-mid-stream",
      "modelStreamErrorException",
      { message: "Model Stream Error", originalStatusCode: 500, originalMessage: "The model stream failed." },
    ],
  ])("ConverseStream with %s: half the events, then a %s message, then the end", async (fault, type, payload) => {
    const response = await call(CLAUDE, "converse-stream", USER_TEXT, script({ fault }));
    expect(response.status).toBe(200);
    const messages = await streamOf(response);
    expect(eventTypes(messages.slice(0, 3))).toEqual(["messageStart", "contentBlockDelta", "contentBlockDelta"]);
    expect(messages).toHaveLength(4);
    expect(headersOf(messages[3]!)).toEqual(exceptionHeaders(type));
    expect(JSON.parse(messages[3]!.body)).toEqual(payload);
  });

  it("InvokeModelWithResponseStream: chunks, then the exception message", async () => {
    const messages = await streamOf(
      await call(CLAUDE, "invoke-with-response-stream", INVOKE, script({ fault: "bedrock-throttling-mid-stream" })),
    );
    expect(headersOf(messages.at(-1)!)).toEqual(exceptionHeaders("throttlingException"));
    expect(eventTypes(messages.slice(0, -1)).every((type) => type === "chunk")).toBe(true);
  });

  it("reset-mid-stream cuts the connection after half the messages", async () => {
    const response = await call(CLAUDE, "converse-stream", USER_TEXT, script({ fault: "reset-mid-stream" }));
    await expect(response.arrayBuffer()).rejects.toThrow();
  });
});
