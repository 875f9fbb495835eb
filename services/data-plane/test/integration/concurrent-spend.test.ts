// Exact prepaid accounting under concurrency: 2,000 requests at once through
// two data planes against a $1.00 balance, the mock reporting random usage.
// Nothing may be served unbilled or billed twice, the balance may never go
// negative, and what clients were told they paid must equal the ledger.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { costToNano, startStack, type GatewayStack, type TestProject } from "../harness/gateway-stack";
import { TEST_REDIS_URL } from "../../../../deploy/test/test-services";

const REQUESTS = 2_000;
const ONE_DOLLAR = 1_000_000_000n;

interface Outcome {
  tag: string;
  status: number;
  requestId: string | null;
  cost?: number;
  body: unknown;
}

describe("2,000 concurrent requests against $1.00 through two data planes", () => {
  let stack: GatewayStack;
  let project: TestProject;

  beforeAll(async () => {
    stack = await startStack({
      backend: "postgresql",
      dataPlanes: 2,
      dataPlaneEnv: { REDIS_URL: TEST_REDIS_URL, DEFAULT_RPM_LIMIT: "0" },
    });
    project = await stack.createProject({ balanceUsd: "1.00" });
  });

  afterAll(async () => {
    await stack?.stop();
  });

  it("never overspends, bills every served request exactly once, and refuses the rest before the upstream", async () => {
    const run = `spend-${Date.now()}`;
    // Random usage: 1-200 prompt tokens, 1-400 completion tokens. The padded
    // prompt (> 200 bytes) and max_tokens 400 make every hold a true worst case.
    await stack.mockScript({ match: run, times: 0, usage: "random" });
    const padding = "x".repeat(220);

    const started = Date.now();
    const outcomes: Outcome[] = await Promise.all(
      Array.from({ length: REQUESTS }, async (_, index): Promise<Outcome> => {
        const tag = `${run}-${index}-end`;
        const response = await stack.post(
          "/v1/chat/completions",
          project.key,
          { model: "openai/gpt-4.1", max_tokens: 400, messages: [{ role: "user", content: `${tag} ${padding}` }] },
          index % 2,
        );
        const body = (await response.json()) as { usage?: { cost: number } };
        return { tag, status: response.status, requestId: response.headers.get("x-request-id"), cost: body.usage?.cost, body };
      }),
    );
    const elapsedMs = Date.now() - started;

    const served = outcomes.filter((outcome) => outcome.status === 200);
    const refused = outcomes.filter((outcome) => outcome.status === 402);
    expect(served.length + refused.length).toBe(REQUESTS); // nothing else: no 5xx, no 429
    expect(served.length).toBeGreaterThan(100);
    expect(refused.length).toBeGreaterThan(100);
    for (const outcome of refused) {
      expect(outcome.body).toEqual({
        error: { type: "billing_error", code: "insufficient_credits", message: expect.any(String), param: null },
      });
    }

    const ledger = await stack.ledger(project.projectId);
    const debits = ledger.filter((entry) => entry.kind === "debit");
    const debitByRequest = new Map(debits.map((entry) => [entry.request_id, -BigInt(entry.amount.nano)]));
    expect(debitByRequest.size).toBe(debits.length); // one debit per request id

    // What clients were told equals the ledger, request by request and in total.
    let toldTotal = 0n;
    for (const outcome of served) {
      const told = costToNano(outcome.cost!);
      expect(debitByRequest.get(outcome.requestId)).toBe(told);
      toldTotal += told;
    }
    const debitedTotal = debits.reduce((sum, entry) => sum - BigInt(entry.amount.nano), 0n);
    expect(debitedTotal).toBe(toldTotal);
    expect(debits.length).toBe(served.length);
    expect(debitedTotal).toBeLessThanOrEqual(ONE_DOLLAR);

    // The upstream saw exactly the served requests; no refused request reached it.
    const seen = new Set((await stack.mockRequestsWith(run)).map((request) => /spend-\d+-\d+-end/.exec(JSON.stringify(request.body))![0]));
    expect(seen.size).toBe(served.length);
    for (const outcome of served) expect(seen.has(outcome.tag)).toBe(true);
    for (const outcome of refused) expect(seen.has(outcome.tag)).toBe(false);

    // The burst made the project busy: some requests were served under budget leases. A lease
    // goes back once idle (LEASE_IDLE_MS, 2 s, swept every second): then nothing is held.
    await stack.waitHeldZero(project.projectId, 6_000);
    const balance = await stack.balance(project.projectId);
    expect(BigInt(balance.balance.nano)).toBe(ONE_DOLLAR - debitedTotal);
    expect(BigInt(balance.balance.nano)).toBeGreaterThanOrEqual(0n);
    expect(balance.held.nano).toBe("0");
    const leases = (await stack.holds(project.projectId, "released")).filter((hold) => hold.lease);
    expect(leases.length).toBeGreaterThan(0);
    const drawnFromLeases = leases.reduce((sum, lease) => sum + BigInt(lease.debited?.nano ?? "0"), 0n);
    expect(drawnFromLeases).toBeGreaterThan(0n);
    expect(drawnFromLeases).toBeLessThanOrEqual(debitedTotal);

    console.log(
      `concurrent spend: ${REQUESTS} requests, ${served.length} served, ${refused.length} refused (402), ` +
        `debited ${debitedTotal} nano-USD of ${ONE_DOLLAR} (${drawnFromLeases} drawn from ${leases.length} leases), balance at end ${balance.balance.nano} nano-USD, in ${elapsedMs} ms`,
    );
  });
});
