// A stream longer than the hold TTL keeps its hold (docs/money.md, "Long requests"): the data plane
// renews the holds and leases of running requests, so the TTL voids only a dead data plane's. Before,
// the sweeper voided a long stream's hold under it and its settle was clamped to what was still free.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { costToNano, startStack, type GatewayStack, type Hold } from "../harness/gateway-stack";
import { sseData } from "../support/sse-data";

const HOLD_TTL_SECONDS = 3;

describe("holds of running requests are renewed", () => {
  let stack: GatewayStack;

  beforeAll(async () => {
    stack = await startStack({
      backend: "postgresql",
      dataPlaneEnv: { LEASE_MIN_REQUESTS_PER_SECOND: "5", LEASE_IDLE_MS: "300", LEASE_MAX_AGE_MS: "1000", DEFAULT_RPM_LIMIT: "0" },
      controlPlaneEnv: { HOLD_TTL_SECONDS: String(HOLD_TTL_SECONDS), HOLD_SWEEP_INTERVAL_MS: "100" },
    });
  });

  afterAll(async () => {
    await stack?.stop();
  });

  async function allHolds(projectId: string): Promise<Hold[]> {
    const lists = await Promise.all(
      (["active", "settled", "released", "expired", "refused"] as const).map((status) => stack.holds(projectId, status)),
    );
    return lists.flat();
  }

  /** A stream of at least three hold TTLs; the holds listed active while it ran past two; what it was told it cost. */
  async function longStream(
    project: { key: string; projectId: string },
    tag: string,
  ): Promise<{ requestId: string; told: bigint; activeMidway: Hold[]; ms: number }> {
    await stack.mockScript({ match: tag, times: 1, chunkDelayMs: 350, usage: { prompt_tokens: 2_000, completion_tokens: 3_000 } });
    const started = Date.now();
    const response = await stack.post("/v1/chat/completions", project.key, {
      model: "openai/gpt-4.1-mini",
      max_tokens: 4_000,
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: "user", content: `${tag} tell me a long story` }],
    });
    expect(response.status).toBe(200);
    const text = response.text();
    // Two TTLs (and many sweeps) into the stream, from when its first bytes came.
    await new Promise((resolve) => setTimeout(resolve, 2 * HOLD_TTL_SECONDS * 1000 + 500));
    const activeMidway = await stack.holds(project.projectId);
    const events = sseData(await text);
    const ms = Date.now() - started;
    expect(events.at(-1)).toBe("[DONE]");
    const usage = events
      .slice(0, -1)
      .map((event) => JSON.parse(event) as { usage?: { cost: number } })
      .find((chunk) => chunk.usage)!.usage!;
    return { requestId: response.headers.get("x-request-id")!, told: costToNano(usage.cost), activeMidway, ms };
  }

  it("a lone stream longer than the TTL keeps its hold and is billed in full", async () => {
    const project = await stack.createProject({ balanceUsd: "1.00" });
    const stream = await longStream(project, `renew-lone-${Date.now()}`);
    expect(stream.ms).toBeGreaterThan(3 * HOLD_TTL_SECONDS * 1000); // it did outlive the TTL
    expect(stream.activeMidway.map((hold) => hold.request_id)).toContain(stream.requestId);
    const holds = await allHolds(project.projectId);
    expect(holds.filter((hold) => hold.status === "expired")).toEqual([]);
    const hold = holds.find((candidate) => candidate.request_id === stream.requestId)!;
    expect(hold.status).toBe("settled");
    expect(hold.unbilled?.nano ?? "0").toBe("0");
    // 2,000 in + 3,000 out at $0.40 / $1.60 per M: the whole answer, not what was left after an expiry.
    expect(stream.told).toBe(5_600_000n);
    const debits = (await stack.ledger(project.projectId)).filter((entry) => entry.kind === "debit");
    expect(debits.map((entry) => [entry.request_id, -BigInt(entry.amount.nano)])).toEqual([[stream.requestId, stream.told]]);
  });

  it("a long stream under a budget lease keeps the lease alive after it retired, and draws in full", async () => {
    const project = await stack.createProject({ balanceUsd: "1.00" });
    const run = `renew-lease-${Date.now()}`;
    await stack.mockScript({ match: `${run}-warm`, times: 0, usage: { prompt_tokens: 10, completion_tokens: 10 } });
    for (let index = 0; index < 12; index++) {
      const response = await stack.post("/v1/chat/completions", project.key, {
        model: "openai/gpt-4.1-mini",
        max_tokens: 64,
        messages: [{ role: "user", content: `${run}-warm-${index}` }],
      });
      expect(response.status).toBe(200);
      await response.json();
    }
    const lease = (await stack.holds(project.projectId, "active")).find((hold) => hold.lease);
    expect(lease).toBeDefined();
    const stream = await longStream(project, `${run}-long`);
    // The stream's share came from a lease (it has no hold of its own), which stayed active while the stream ran.
    expect((await allHolds(project.projectId)).map((hold) => hold.request_id)).not.toContain(stream.requestId);
    expect(stream.activeMidway.some((hold) => hold.lease)).toBe(true);
    await stack.waitHeldZero(project.projectId, 5_000);
    const leases = (await allHolds(project.projectId)).filter((hold) => hold.lease);
    expect(leases.filter((hold) => hold.status === "expired")).toEqual([]);
    expect(stream.told).toBe(5_600_000n);
    const debits = (await stack.ledger(project.projectId)).filter((entry) => entry.kind === "debit");
    expect(debits.find((entry) => entry.request_id === stream.requestId)?.amount.nano).toBe((-stream.told).toString());
  });
});
