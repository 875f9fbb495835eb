// The GenAI and spend series for a scripted set of calls (usage scripted at the
// mock): gen_ai_client_token_usage_total by token type, gateway_spend_usd_total
// by model and provider (here with the opt-in project and key labels), and the
// time-to-first-token and request-duration histograms, counted exactly and
// matching the ledger's debits (their amounts and billed units by component).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { marker, startStack, type GatewayStack, type TestProject } from "../harness/gateway-stack";

/** The token type of each cost component the ledger keeps (as src/gen-ai-metrics.ts maps them). */
const TOKEN_TYPE: Record<string, string> = {
  input: "input",
  cached_input: "cached",
  cache_write_5m: "cache_write",
  cache_write_1h: "cache_write",
  output: "output",
  reasoning: "reasoning",
};

interface Debit {
  kind: string;
  amount: { nano: string };
  model: string | null;
  access_path: string | null;
  cost_by_component: Record<string, { units: number }> | null;
}

/** Every sample of a metric: its labels and value. */
function samples(text: string, name: string): { labels: Record<string, string>; value: number }[] {
  const rows: { labels: Record<string, string>; value: number }[] = [];
  for (const line of text.split("\n")) {
    if (!line.startsWith(`${name}{`)) continue;
    const labels = Object.fromEntries([...line.matchAll(/(\w+)="([^"]*)"/g)].map((match) => [match[1]!, match[2]!]));
    rows.push({ labels, value: Number(line.split(" ").at(-1)) });
  }
  return rows;
}

describe("GenAI token usage and spend, against the ledger", () => {
  let stack: GatewayStack;
  let project: TestProject;
  let text = "";
  let debits: Debit[] = [];

  beforeAll(async () => {
    stack = await startStack({ backend: "pglite", dataPlaneEnv: { METRICS_PROJECT_LABELS: "true" } });
    project = await stack.createProject({ balanceUsd: "5.00" });
    const call = async (route: string, body: Record<string, unknown>, usage: Record<string, number> | undefined, status = 200) => {
      const tag = marker();
      if (usage) await stack.mockScript({ match: tag, times: 1, usage });
      else await stack.mockScript({ match: tag, times: 0, status: 400 });
      const content = route === "/v1/embeddings" ? { input: `embed ${tag}` } : { messages: [{ role: "user", content: `hello ${tag}` }] };
      const response = await stack.post(route, project.key, { ...body, ...content });
      await response.text();
      expect(response.status).toBe(status);
    };
    await call("/v1/chat/completions", { model: "openai/gpt-4.1-mini" }, { prompt_tokens: 100, completion_tokens: 50, cached_tokens: 40 });
    await call(
      "/v1/chat/completions",
      { model: "openai/gpt-4.1-mini", stream: true, stream_options: { include_usage: true } },
      { prompt_tokens: 30, completion_tokens: 200, reasoning_tokens: 120 },
    );
    await call("/v1/chat/completions", { model: "openai/gpt-4.1-mini" }, { prompt_tokens: 7, completion_tokens: 3 });
    await call("/v1/embeddings", { model: "openai/text-embedding-3-small" }, { prompt_tokens: 12 });
    // Refused upstream: nothing billed, nothing counted.
    await call("/v1/chat/completions", { model: "openai/gpt-4.1-mini" }, undefined, 400);
    debits = ((await stack.ledger(project.projectId)) as unknown as Debit[]).filter((entry) => entry.kind === "debit");
    text = await (await fetch(`${stack.metricsUrl}/metrics`)).text();
  });

  afterAll(async () => {
    await stack?.stop();
  });

  it("counts the billed tokens by type, exactly as scripted and as the ledger's debits split them", () => {
    expect(debits).toHaveLength(4);
    const usage = samples(text, "gen_ai_client_token_usage_total");
    const byType = (operation: string) => {
      const totals: Record<string, number> = {};
      for (const { labels, value } of usage.filter((sample) => sample.labels.gen_ai_operation_name === operation)) {
        expect(labels).toMatchObject({ gen_ai_provider_name: "openai" });
        expect(labels.gen_ai_request_model).toBe(labels.gen_ai_response_model);
        totals[labels.gen_ai_token_type!] = (totals[labels.gen_ai_token_type!] ?? 0) + value;
      }
      return totals;
    };
    const chat = byType("chat");
    // Prompt tokens 137 (40 of them cached), completion tokens 253: the types do not overlap.
    expect(chat.cached).toBe(40);
    expect((chat.input ?? 0) + chat.cached!).toBe(137);
    expect((chat.output ?? 0) + (chat.reasoning ?? 0)).toBe(253);
    expect(byType("embeddings")).toEqual({ input: 12 });
    // And the ledger's billed units, by the same types.
    const ledger: Record<string, number> = {};
    for (const debit of debits)
      for (const [component, part] of Object.entries(debit.cost_by_component ?? {}))
        if (TOKEN_TYPE[component]) ledger[TOKEN_TYPE[component]!] = (ledger[TOKEN_TYPE[component]!] ?? 0) + part.units;
    const metric: Record<string, number> = {};
    for (const { labels, value } of usage) metric[labels.gen_ai_token_type!] = (metric[labels.gen_ai_token_type!] ?? 0) + value;
    expect(metric).toEqual(ledger);
  });

  it("counts the spend in USD by model and provider, with the opt-in project and key labels, equal to the ledger's debits", () => {
    const spend = samples(text, "gateway_spend_usd_total");
    const ledgerNano = new Map<string, bigint>();
    for (const debit of debits) {
      const key = `${debit.model}|${debit.access_path}`;
      const nano = BigInt(debit.amount.nano);
      ledgerNano.set(key, (ledgerNano.get(key) ?? 0n) + (nano < 0n ? -nano : nano));
    }
    expect(spend.map(({ labels }) => `${labels.model}|${labels.provider}`).sort()).toEqual([...ledgerNano.keys()].sort());
    for (const { labels, value } of spend) {
      expect(labels).toMatchObject({ project: project.projectId, key: project.keyId });
      expect(value).toBe(Number(ledgerNano.get(`${labels.model}|${labels.provider}`)) / 1e9);
    }
    expect(text).toMatch(/^# TYPE gateway_spend_usd_total counter$/m);
  });

  it("counts each answer once, by route, status, model and access path", () => {
    const requests = samples(text, "gateway_requests_total").map(({ labels, value }) => [
      `${labels.route} ${labels.status} ${labels.model} ${labels.access_path}`,
      value,
    ]);
    expect(Object.fromEntries(requests)).toEqual({
      "/v1/chat/completions 200 openai/gpt-4.1-mini openai": 3,
      "/v1/chat/completions 400 openai/gpt-4.1-mini openai": 1,
      "/v1/embeddings 200 openai/text-embedding-3-small openai": 1,
    });
  });

  it("observes the request duration of every model call and the time to first token of the stream", () => {
    const count = (name: string) => samples(text, name).reduce((sum, { value }) => sum + value, 0);
    expect(count("gen_ai_server_request_duration_seconds_count")).toBe(5);
    expect(count("gen_ai_server_time_to_first_token_seconds_count")).toBe(1);
    expect(samples(text, "gen_ai_server_time_to_first_token_seconds_count")[0]!.labels).toEqual({
      gen_ai_operation_name: "chat",
      gen_ai_provider_name: "openai",
      gen_ai_request_model: "openai/gpt-4.1-mini",
      gen_ai_response_model: "openai/gpt-4.1-mini",
    });
  });
});
