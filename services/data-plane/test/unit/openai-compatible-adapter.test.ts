import { describe, expect, it } from "vitest";
import { OPENAI_CHAT_FIELDS, OPENAI_EMBEDDINGS_FIELDS, pickFields } from "../../src/providers/openai-compatible/accepted-fields";
import { OpenAiCompatibleAdapter } from "../../src/providers/openai-compatible/openai-compatible-adapter";

const provider = new OpenAiCompatibleAdapter();

describe("pickFields", () => {
  it("keeps accepted fields in the caller's order and drops the rest", () => {
    const out = pickFields({ z: 1, temperature: 0.2, foo: "x", model: "m", top_k: 40, messages: [] }, OPENAI_CHAT_FIELDS);
    expect(Object.entries(out)).toEqual([
      ["temperature", 0.2],
      ["model", "m"],
      ["messages", []],
    ]);
  });

  it.each(["service", "top_k", "foo", "provider", "transforms", "repetition_penalty", "min_p"])("does not accept %s for chat", (field) => {
    expect(OPENAI_CHAT_FIELDS.has(field)).toBe(false);
  });

  it("accepts exactly the five embeddings fields", () => {
    expect([...OPENAI_EMBEDDINGS_FIELDS].sort()).toEqual(["dimensions", "encoding_format", "input", "model", "user"]);
  });
});

describe("OpenAiCompatibleAdapter.chatBody", () => {
  it("removes unknown fields and replaces the model, preserving key order", () => {
    const body = {
      model: "auto",
      service: { tier: "quality" },
      messages: [{ role: "user", content: "hi" }],
      foo: 1,
      top_k: 40,
      temperature: 0.5,
      max_tokens: 10,
    };
    expect(provider.chatBody(body, "gpt-4.1-mini")).toBe(
      '{"model":"gpt-4.1-mini","messages":[{"role":"user","content":"hi"}],"temperature":0.5,"max_tokens":10}',
    );
  });

  it("appends the model when the caller sent none", () => {
    expect(provider.chatBody({ messages: [], n: 2 }, "gpt-4o")).toBe('{"messages":[],"n":2,"model":"gpt-4o"}');
  });

  it("forces include_usage on streams and keeps other stream_options keys", () => {
    const body = { model: "x", stream: true, stream_options: { include_usage: false, include_obfuscation: false }, messages: [] };
    expect(JSON.parse(provider.chatBody(body, "up"))).toEqual({
      model: "up",
      stream: true,
      stream_options: { include_usage: true, include_obfuscation: false },
      messages: [],
    });
  });

  it("adds stream_options after the other fields when a stream had none", () => {
    expect(provider.chatBody({ model: "x", stream: true, messages: [] }, "up")).toBe(
      '{"model":"up","stream":true,"messages":[],"stream_options":{"include_usage":true}}',
    );
  });

  it("replaces a non-object stream_options on a stream", () => {
    expect(JSON.parse(provider.chatBody({ model: "x", stream: true, stream_options: null }, "up")).stream_options).toEqual({
      include_usage: true,
    });
  });

  it.each([
    ["stream false", { model: "x", stream: false, stream_options: { include_usage: true } }, '{"model":"up","stream":false}'],
    ["no stream", { model: "x", stream_options: { include_usage: true } }, '{"model":"up"}'],
    ["stream as a string", { model: "x", stream: "true", stream_options: { include_usage: true } }, '{"model":"up","stream":"true"}'],
  ])("drops stream_options when not streaming (%s)", (_name, body, expected) => {
    expect(provider.chatBody(body, "up")).toBe(expected);
  });

  it("does not modify the caller's body", () => {
    const body = { model: "x", stream: true, stream_options: { include_usage: false }, foo: 1 };
    provider.chatBody(body, "up");
    expect(body).toEqual({ model: "x", stream: true, stream_options: { include_usage: false }, foo: 1 });
  });
});

describe("OpenAiCompatibleAdapter.request", () => {
  const context = { upstreamModel: "text-embedding-3-small", apiKey: "sk-up", maxOutputTokens: 0 };

  it("keeps only the embeddings fields, in order, with the upstream model", () => {
    const body = {
      input: ["a", "b"],
      model: "auto",
      service: { tier: "economy" },
      dimensions: 256,
      messages: [],
      encoding_format: "float",
      stream: true,
      user: "u1",
    };
    const call = provider.request("embeddings", body, context);
    expect(call.path).toBe("/embeddings");
    expect(call.body).toBe('{"input":["a","b"],"model":"text-embedding-3-small","dimensions":256,"encoding_format":"float","user":"u1"}');
    expect(call.headers.authorization).toBe("Bearer sk-up");
  });

  it("sends chat to /chat/completions, without authorization when the path has no key", () => {
    const call = provider.request("chat", { model: "auto", messages: [] }, { ...context, upstreamModel: "gpt-4.1", apiKey: undefined });
    expect(call.path).toBe("/chat/completions");
    expect(call.headers.authorization).toBeUndefined();
    expect(JSON.parse(call.body)).toEqual({ model: "gpt-4.1", messages: [] });
  });

  it("forwards a provider's extra fields only when configured (OpenRouter's extras, not OpenAI's)", () => {
    const body = { model: "auto", messages: [], top_k: 40, provider: { order: ["x"] }, transforms: [], min_p: 0.1 };
    expect(JSON.parse(new OpenAiCompatibleAdapter(["top_k", "provider", "transforms"]).chatBody(body, "m"))).toEqual({
      model: "m",
      messages: [],
      top_k: 40,
      provider: { order: ["x"] },
      transforms: [],
    });
    expect(JSON.parse(provider.chatBody(body, "m"))).toEqual({ model: "m", messages: [] });
  });
});

describe("OpenAiCompatibleAdapter.stream", () => {
  const event = (data: string, name = "message") => ({ event: name, data, id: undefined });

  it("reads each chunk (its event is relayed as written) and ends on [DONE]", () => {
    const translator = provider.stream();
    const raw = '{"id":"c1","choices":[{"index":0,"delta":{"content":"Hi"}}] }';
    expect(translator.push(event(raw))).toEqual([{ kind: "chunk", chunk: JSON.parse(raw) }]);
    expect(translator.push(event("[DONE]"))).toEqual([{ kind: "done" }]);
    expect(translator.end()).toEqual([]);
  });

  it("turns OpenAI's error event, OpenRouter's error chunk and `event: error` into an error item", () => {
    const translator = provider.stream();
    expect(translator.push(event('{"error":{"message":"boom","type":"server_error"}}'))).toEqual([{ kind: "error" }]);
    expect(
      translator.push(
        event('{"id":"gen-1","error":{"code":502,"message":"x"},"choices":[{"index":0,"delta":{},"finish_reason":"error"}]}'),
      ),
    ).toEqual([{ kind: "error" }]);
    expect(translator.push(event('{"type":"error"}', "error"))).toEqual([{ kind: "error" }]);
  });

  it("reports malformed and non-object events as malformed, their content lost", () => {
    const translator = provider.stream();
    expect(translator.push(event("{not json"))).toEqual([{ kind: "malformed", lost: true }]);
    expect(translator.push(event("[1,2]"))).toEqual([{ kind: "malformed", lost: true }]);
  });
});
