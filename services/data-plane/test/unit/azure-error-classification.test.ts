// Azure OpenAI error bodies (recorded) into the gateway's categories, from
// their structured codes only. The status decides failover (engine): 400 is
// the request's (no failover), 401/403/404 the path's, 429 a rate limit.
import { fixtures } from "../support/fixture";
import { describe, expect, it } from "vitest";
import { AzureOpenAiAdapter } from "../../src/providers/azure/azure-openai-adapter";

const recorded = fixtures("azure");
const body = (file: string) => recorded.json<Record<string, any>>(file);
const adapter = new AzureOpenAiAdapter({ apiForm: "deployments", apiVersion: "2024-10-21", apiKey: "k" });

describe("Azure error bodies", () => {
  it("a content-filter refusal of the prompt is a content-policy refusal", () => {
    expect(adapter.classifyError(body("azure.error.400.content_filter.json"), {})).toBe("content_policy");
  });

  it("either code alone says content filter", () => {
    const recorded = body("azure.error.400.content_filter.json");
    expect(adapter.classifyError({ error: { ...recorded.error, code: null } })).toBe("content_policy");
    expect(adapter.classifyError({ error: { code: "content_filter", message: "…" } })).toBe("content_policy");
  });

  it("an unknown deployment is a model not found at the provider", () => {
    expect(adapter.classifyError(body("azure.error.404.deployment_not_found.json"))).toBe("model_not_found");
  });

  it("a bad key and a rate limit have no category: their status says it all", () => {
    expect(adapter.classifyError(body("azure.error.401.invalid_key.json"))).toBeUndefined();
    expect(adapter.classifyError(body("azure.error.429.rate_limit.json"), { "retry-after": "86400" })).toBeUndefined();
  });

  it("OpenAI's codes relayed by a deployment are read as OpenAI's", () => {
    expect(adapter.classifyError({ error: { code: "context_length_exceeded", message: "x" } })).toBe("context_window_exceeded");
  });

  it("never reads the message text", () => {
    expect(
      adapter.classifyError({ error: { code: "400", message: "content_filter DeploymentNotFound ResponsibleAIPolicyViolation" } }),
    ).toBeUndefined();
    expect(adapter.classifyError("DeploymentNotFound")).toBeUndefined();
    expect(adapter.classifyError(null)).toBeUndefined();
  });
});
