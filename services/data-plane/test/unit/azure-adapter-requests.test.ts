// AzureOpenAiAdapter, requests: Azure's two URL forms (deployments with an
// api-version, v1 with the deployment as `model`), the body the OpenAI adapter
// builds, and the `api-key` header (never OpenAI's bearer).
import { describe, expect, it } from "vitest";
import { AzureOpenAiAdapter } from "../../src/providers/azure/azure-openai-adapter";
import type { RequestContext } from "../../src/providers/provider-adapter";

const context: RequestContext = { upstreamModel: "gpt-4.1-nano", apiKey: undefined, maxOutputTokens: 32_768 };
const chatBody = { model: "openai/gpt-4.1-nano", messages: [{ role: "user", content: "Hello" }], max_tokens: 10 };

const deployments = (apiKey?: string) => new AzureOpenAiAdapter({ apiForm: "deployments", apiVersion: "2024-10-21", apiKey });
const v1 = (apiKey?: string) => new AzureOpenAiAdapter({ apiForm: "v1", apiVersion: "2024-10-21", apiKey });

describe("the deployments form", () => {
  it("puts the deployment and the api-version in the path of chat and embeddings calls", () => {
    const adapter = deployments("k");
    expect(adapter.request("chat", chatBody, context).path).toBe("/deployments/gpt-4.1-nano/chat/completions?api-version=2024-10-21");
    expect(adapter.request("embeddings", { model: "x", input: ["a"] }, { ...context, upstreamModel: "text-embedding-3-small" }).path).toBe(
      "/deployments/text-embedding-3-small/embeddings?api-version=2024-10-21",
    );
  });

  it("escapes a deployment name and an api-version that are not path-safe", () => {
    const adapter = new AzureOpenAiAdapter({ apiForm: "deployments", apiVersion: "2025-04-01-preview" });
    expect(adapter.request("chat", chatBody, { ...context, upstreamModel: "my deployment/1" }).path).toBe(
      "/deployments/my%20deployment%2F1/chat/completions?api-version=2025-04-01-preview",
    );
  });

  it("sends OpenAI's body with the deployment as model (Azure ignores it on this form) and asks streams for usage", () => {
    const call = deployments("k").request("chat", { ...chatBody, stream: true, unknown_field: 1 }, context);
    expect(JSON.parse(call.body)).toEqual({
      model: "gpt-4.1-nano",
      messages: chatBody.messages,
      max_tokens: 10,
      stream: true,
      stream_options: { include_usage: true },
    });
  });

  it("has no Responses API: a Responses client is translated", () => {
    expect(deployments("k").native("openai-responses")).toBeUndefined();
    expect(deployments("k").native("anthropic-messages")).toBeUndefined();
  });
});

describe("the v1 form", () => {
  it("uses OpenAI's paths under /v1 without an api-version", () => {
    const adapter = v1("k");
    expect(adapter.request("chat", chatBody, context).path).toBe("/v1/chat/completions");
    expect(adapter.request("embeddings", { model: "x", input: "a" }, context).path).toBe("/v1/embeddings");
    expect(JSON.parse(adapter.request("chat", chatBody, context).body).model).toBe("gpt-4.1-nano");
  });

  it("passes a Responses client through to /v1/responses with the deployment as model", () => {
    const codec = v1("k").native("openai-responses")!;
    const call = codec.call({ model: "openai/gpt-4.1-nano", input: "Hi", store: false }, context, 100);
    expect(call.path).toBe("/v1/responses");
    expect(call.headers["api-key"]).toBe("k");
    expect(JSON.parse(call.body)).toMatchObject({ model: "gpt-4.1-nano", input: "Hi", store: false, max_output_tokens: 100 });
  });
});

describe("native chat and embeddings codecs", () => {
  it("place their calls the same way, with the cap in max_tokens", () => {
    const chat = deployments("k").native("openai-chat")!.call(chatBody, context, 50);
    expect(chat.path).toBe("/deployments/gpt-4.1-nano/chat/completions?api-version=2024-10-21");
    expect(JSON.parse(chat.body).max_tokens).toBe(50);
    const embeddings = v1("k").native("openai-embeddings")!.call({ model: "x", input: "a" }, context);
    expect(embeddings.path).toBe("/v1/embeddings");
  });
});

describe("authentication headers", () => {
  it("sends the resource's key as api-key, never as a bearer, even when the path has a key of its own", () => {
    const call = deployments("azure-key").request("chat", chatBody, { ...context, apiKey: "path-key" });
    expect(call.headers["api-key"]).toBe("azure-key");
    expect(call.headers.authorization).toBeUndefined();
    expect(JSON.stringify(call)).not.toContain("path-key");
  });

  it("sends no credential without a key: the Entra ID bearer is added at send time", () => {
    const call = v1().request("chat", chatBody, context);
    expect(call.headers["api-key"]).toBeUndefined();
    expect(call.headers.authorization).toBeUndefined();
    expect(call.headers["content-type"]).toBe("application/json");
  });
});
