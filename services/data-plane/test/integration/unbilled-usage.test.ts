// Usage beyond the worst case reserved: the ledger debits the hold, the caller's
// usage.cost is that debit, and the rest the gateway absorbs is counted in
// gateway_unbilled_usd_total{model,access_path}, the control plane's
// unbilled figure for the hold alike. Usage within the worst case (a Gemini
// answer past max_tokens, as thinking goes) is billed in full and counts nothing.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { costToNano, marker, startStack, type GatewayStack, type TestProject } from "../harness/gateway-stack";

const GPT = { model: "openai/gpt-4.1-mini", path: "openai", inputNano: 400n, outputNano: 1_600n }; // $0.40 / $1.60 per million
const GEMINI = { model: "google/gemini-2.5-flash", path: "google", inputNano: 300n, outputNano: 2_500n }; // $0.30 / $2.50

describe("usage beyond the hold", () => {
  let stack: GatewayStack;
  let project: TestProject;

  beforeAll(async () => {
    stack = await startStack({ backend: "pglite", mockAsProviders: ["google"] });
    project = await stack.createProject({ balanceUsd: "5.00" });
  });

  afterAll(async () => {
    await stack?.stop();
  });

  const unbilledMetric = async (model: string, path: string): Promise<number | undefined> => {
    const text = await (await fetch(`${stack.metricsUrl}/metrics`)).text();
    const line = text.split("\n").find((row) => row.startsWith(`gateway_unbilled_usd_total{model="${model}",access_path="${path}"} `));
    return line === undefined ? undefined : Number(line.split(" ").at(-1));
  };

  async function ask(model: string, usage: { prompt_tokens: number; completion_tokens: number }) {
    const tag = marker();
    await stack.mockScript({ match: tag, times: 1, usage });
    const response = await stack.post("/v1/chat/completions", project.key, {
      model,
      max_tokens: 100,
      messages: [{ role: "user", content: `Tell me about Paris ${tag}` }],
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { usage: { cost: number; prompt_tokens: number; completion_tokens: number } };
    const requestId = response.headers.get("x-request-id")!;
    const hold = (await stack.holds(project.projectId, "settled")).find((row) => row.request_id === requestId)!;
    return { body, hold };
  }

  it("debits the hold, and counts the rest as unbilled for the model and access path", async () => {
    expect(await unbilledMetric(GPT.model, GPT.path)).toBeUndefined();
    // 100,000 output tokens against max_tokens 100: an upstream ignoring the limit.
    const { body, hold } = await ask(GPT.model, { prompt_tokens: 20, completion_tokens: 100_000 });
    const cost = 20n * GPT.inputNano + 100_000n * GPT.outputNano;
    expect(BigInt(hold.debited!.nano)).toBe(BigInt(hold.amount.nano));
    expect(costToNano(body.usage.cost)).toBe(BigInt(hold.debited!.nano));
    expect(await unbilledMetric(GPT.model, GPT.path)).toBe(Number(cost - BigInt(hold.debited!.nano)) / 1e9); // USD
    expect(BigInt(hold.unbilled!.nano)).toBe(cost - BigInt(hold.debited!.nano));
  });

  it("bills a Gemini answer past max_tokens in full: its thinking is in the worst case", async () => {
    // The acceptance review's case: gemini-2.5-flash, max_tokens 100, thousands of tokens out.
    const { body, hold } = await ask(GEMINI.model, { prompt_tokens: 20, completion_tokens: 20_000 });
    const cost = 20n * GEMINI.inputNano + 20_000n * GEMINI.outputNano;
    expect(body.usage.completion_tokens).toBe(20_000);
    expect(costToNano(body.usage.cost)).toBe(cost);
    expect(BigInt(hold.debited!.nano)).toBe(cost);
    expect(BigInt(hold.amount.nano)).toBeGreaterThan(cost);
    expect(await unbilledMetric(GEMINI.model, GEMINI.path)).toBeUndefined();
  });
});
