// Vertex AI call paths: the publisher from the model id, project and location in
// the path, global and regional locations alike (the host is the base URL's).
import { describe, expect, it } from "vitest";
import { VertexClaudeAdapter } from "../../src/providers/vertex/vertex-claude-adapter";
import { VertexGeminiAdapter } from "../../src/providers/vertex/vertex-gemini-adapter";
import { vertexAccess } from "../../src/providers/vertex/vertex-access";
import { publisherOf, vertexModelPath } from "../../src/providers/vertex/vertex-paths";
import type { RequestContext } from "../../src/providers/provider-adapter";

const context = (upstreamModel: string): RequestContext => ({ upstreamModel, apiKey: undefined, maxOutputTokens: 1024 });
const chat = { messages: [{ role: "user", content: "Hi" }] };

describe("vertex paths", () => {
  it("picks Anthropic for claude- ids and Google for everything else", () => {
    expect(publisherOf("claude-opus-4-6")).toBe("anthropic");
    expect(publisherOf("claude-sonnet-4@20250514")).toBe("anthropic");
    expect(publisherOf("gemini-2.5-flash")).toBe("google");
    expect(publisherOf("text-embedding-005")).toBe("google");
  });

  it("builds the model resource path for a regional location", () => {
    expect(vertexModelPath({ project: "my-project", location: "europe-west1" }, "anthropic", "claude-opus-4-6", "rawPredict")).toBe(
      "/projects/my-project/locations/europe-west1/publishers/anthropic/models/claude-opus-4-6:rawPredict",
    );
  });

  it("keeps the model one path segment: Claude's @ as written, anything else percent-encoded", () => {
    const place = { project: "p", location: "us-east5" };
    expect(vertexModelPath(place, "anthropic", "claude-sonnet-4@20250514", "rawPredict")).toBe(
      "/projects/p/locations/us-east5/publishers/anthropic/models/claude-sonnet-4@20250514:rawPredict",
    );
    expect(vertexModelPath(place, "google", "../../../other/models/x?y", "generateContent")).toBe(
      "/projects/p/locations/us-east5/publishers/google/models/..%2F..%2F..%2Fother%2Fmodels%2Fx%3Fy:generateContent",
    );
  });

  it("puts global in the path for the global location", () => {
    const adapter = new VertexGeminiAdapter({ project: "p1", location: "global" });
    expect(adapter.request("chat", chat, context("gemini-3-pro-preview")).path).toBe(
      "/projects/p1/locations/global/publishers/google/models/gemini-3-pro-preview:generateContent",
    );
  });

  it("uses the Gemini methods, SSE for streams, and :predict for embeddings", () => {
    const adapter = new VertexGeminiAdapter({ project: "p1", location: "us-central1" });
    const base = "/projects/p1/locations/us-central1/publishers/google/models";
    expect(adapter.request("chat", { ...chat, stream: true }, context("gemini-2.5-flash")).path).toBe(
      `${base}/gemini-2.5-flash:streamGenerateContent?alt=sse`,
    );
    expect(adapter.request("embeddings", { input: "x" }, context("text-embedding-005")).path).toBe(`${base}/text-embedding-005:predict`);
  });

  it("uses rawPredict and streamRawPredict for Claude", () => {
    const adapter = new VertexClaudeAdapter({ project: "p1", location: "us-east5" });
    const base = "/projects/p1/locations/us-east5/publishers/anthropic/models";
    expect(adapter.request("chat", chat, context("claude-sonnet-4@20250514")).path).toBe(`${base}/claude-sonnet-4@20250514:rawPredict`);
    expect(adapter.request("chat", { ...chat, stream: true }, context("claude-opus-4-6")).path).toBe(
      `${base}/claude-opus-4-6:streamRawPredict`,
    );
  });

  it("gives each model of one provider its publisher's adapter", () => {
    const access = vertexAccess(
      {
        name: "vertex",
        baseUrl: "http://127.0.0.1:1/vertex/v1",
        protocol: "vertex",
        extraFields: [],
        responsesApi: false,
        cloud: { region: "global", project: "p1" },
      },
      () => {},
    );
    try {
      expect(access.adapterFor("claude-opus-4-6")).toBeInstanceOf(VertexClaudeAdapter);
      expect(access.adapterFor("gemini-2.5-flash")).toBeInstanceOf(VertexGeminiAdapter);
      expect(access.auth).toBeDefined();
    } finally {
      access.auth?.close();
    }
  });
});
