// Vertex AI error bodies: google.rpc.Status (also array-wrapped) and Anthropic's
// envelope from Claude's rawPredict, classified from structured fields only.
import { describe, expect, it } from "vitest";
import { VertexClaudeAdapter } from "../../src/providers/vertex/vertex-claude-adapter";
import { VertexGeminiAdapter } from "../../src/providers/vertex/vertex-gemini-adapter";
import { fixtures } from "../support/fixture";

const vertex = fixtures("vertex");
const place = { project: "p1", location: "global" };
const adapters = [new VertexGeminiAdapter(place), new VertexClaudeAdapter(place)];

describe("vertex error classification", () => {
  it.each([
    ["vertex.error.404.publisher_model_not_found.json", "model_not_found"],
    ["vertex.error.429.resource_exhausted.json", undefined],
    ["vertex.error.429.resource_exhausted.array.json", undefined],
    ["vertex.error.400.invalid_argument.json", undefined],
    ["vertex.error.401.unauthenticated.json", undefined],
    ["vertex.error.403.permission_denied.json", undefined],
  ])("%s -> %s", (file, category) => {
    for (const adapter of adapters) expect(adapter.classifyError(vertex.json(file))).toBe(category);
  });

  it("reads NOT_FOUND inside the array form, and Anthropic's envelope from Claude", () => {
    const notFound = vertex.json("vertex.error.404.publisher_model_not_found.json");
    for (const adapter of adapters) {
      expect(adapter.classifyError([notFound])).toBe("model_not_found");
      expect(adapter.classifyError({ type: "error", error: { type: "not_found_error", message: "model: x" } })).toBe("model_not_found");
      expect(adapter.classifyError({ type: "error", error: { type: "overloaded_error", message: "Overloaded" } })).toBeUndefined();
    }
  });

  it("never reads the message", () => {
    const body = { error: { code: 400, message: "Publisher Model was not found; context length exceeded", status: "INVALID_ARGUMENT" } };
    for (const adapter of adapters) expect(adapter.classifyError(body)).toBeUndefined();
  });
});
