import { describe, expect, it } from "vitest";
import { OPENAI_CHAT_FIELDS, OPENAI_EMBEDDINGS_FIELDS, pickFields } from "../../src/providers/openai-compatible/accepted-fields";
import { OpenAiCompatibleProvider } from "../../src/providers/openai-compatible/openai-compatible-provider";

const provider = new OpenAiCompatibleProvider({ name: "openai", baseUrl: "http://x/v1" }, {} as never);

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

describe("OpenAiCompatibleProvider.chatBody", () => {
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
    expect(provider.chatBody(body, "gpt-4.1-mini")).toBe('{"model":"gpt-4.1-mini","messages":[{"role":"user","content":"hi"}],"temperature":0.5,"max_tokens":10}');
  });

  it("appends the model when the caller sent none", () => {
    expect(provider.chatBody({ messages: [], n: 2 }, "gpt-4o")).toBe('{"messages":[],"n":2,"model":"gpt-4o"}');
  });

  it("forces include_usage on streams and keeps other stream_options keys", () => {
    const body = { model: "x", stream: true, stream_options: { include_usage: false, include_obfuscation: false }, messages: [] };
    expect(JSON.parse(provider.chatBody(body, "up"))).toEqual({ model: "up", stream: true, stream_options: { include_usage: true, include_obfuscation: false }, messages: [] });
  });

  it("adds stream_options after the other fields when a stream had none", () => {
    expect(provider.chatBody({ model: "x", stream: true, messages: [] }, "up")).toBe('{"model":"up","stream":true,"messages":[],"stream_options":{"include_usage":true}}');
  });

  it("replaces a non-object stream_options on a stream", () => {
    expect(JSON.parse(provider.chatBody({ model: "x", stream: true, stream_options: null }, "up")).stream_options).toEqual({ include_usage: true });
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

describe("OpenAiCompatibleProvider.embeddingsBody", () => {
  it("keeps only the embeddings fields, in order, with the upstream model", () => {
    const body = { input: ["a", "b"], model: "auto", service: { tier: "economy" }, dimensions: 256, messages: [], encoding_format: "float", stream: true, user: "u1" };
    expect(provider.embeddingsBody(body, "text-embedding-3-small")).toBe(
      '{"input":["a","b"],"model":"text-embedding-3-small","dimensions":256,"encoding_format":"float","user":"u1"}',
    );
  });
});
