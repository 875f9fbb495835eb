// GenAiMetrics: token types from the settled cost parts (non-token parts are
// not tokens), and the spend's project and key labels only when opted in.
import { Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import { type GenAiCall, GenAiMetrics } from "../../src/gen-ai-metrics";

const call: GenAiCall = {
  plan: { request: { operation: "chat", body: { model: "auto" } }, identity: { keyId: "key-1" } },
  target: { model: { id: "anthropic/claude-sonnet-4" }, path: { provider: "anthropic" } },
  projectId: "project-1",
  receivedAt: 0,
};
const parts = [
  { component: "input", units: 21, nano: 63n },
  { component: "cache_write_5m", units: 100, nano: 375n },
  { component: "cache_write_1h", units: 10, nano: 60n },
  { component: "cached_input", units: 50, nano: 15n },
  { component: "output", units: 393, nano: 5895n },
  { component: "web_search", units: 1, nano: 10_000_000n },
  { component: "rounding", units: 0, nano: 1n },
];

describe("GenAiMetrics", () => {
  it("counts tokens by type and the spend by model and provider only, by default", async () => {
    const registry = new Registry();
    new GenAiMetrics(registry, false).settled(call, parts, 10_006_409n);
    const text = await registry.metrics();
    const labels =
      'gen_ai_operation_name="chat",gen_ai_provider_name="anthropic",gen_ai_request_model="auto",gen_ai_response_model="anthropic/claude-sonnet-4"';
    expect(text).toContain(`gen_ai_client_token_usage_total{${labels},gen_ai_token_type="input"} 21`);
    expect(text).toContain(`gen_ai_client_token_usage_total{${labels},gen_ai_token_type="cache_write"} 110`);
    expect(text).toContain(`gen_ai_client_token_usage_total{${labels},gen_ai_token_type="cached"} 50`);
    expect(text).toContain(`gen_ai_client_token_usage_total{${labels},gen_ai_token_type="output"} 393`);
    expect(text.match(/^gen_ai_client_token_usage_total\{/gm)).toHaveLength(4);
    expect(text).toMatch(/^gateway_spend_usd_total\{model="anthropic\/claude-sonnet-4",provider="anthropic"\} 0\.010006409$/m);
  });

  it("labels the spend by project and key when opted in", async () => {
    const registry = new Registry();
    new GenAiMetrics(registry, true).settled(call, parts, 10_006_409n);
    expect(await registry.metrics()).toMatch(
      /^gateway_spend_usd_total\{model="anthropic\/claude-sonnet-4",provider="anthropic",project="project-1",key="key-1"\} 0\.010006409$/m,
    );
  });
});
