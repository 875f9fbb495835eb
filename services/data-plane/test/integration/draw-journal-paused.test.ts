// A paused Redis under the draw journal (issue 36, item 5; docs/money.md, "A killed data plane"):
// leased answers are kept in the local journal file before they leave and never wait for Redis, so
// a pause does not slow them (their median stays within a margin of the healthy one, measured in the
// same test); the copy to Redis opens its circuit after one late batch and nothing more is sent. A data
// plane SIGKILLed during the pause (its last answers' debits in its local file only: nothing was copied
// since the pause) and started again on its directory while Redis is still paused draws them itself:
// every answered debit is on the ledger once. Once Redis is back, the probe closes the circuit and the
// copies go again.
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AnswerLoad, startAnswerLoad } from "../harness/answer-load";
import { costToNano, type GatewayStack, startStack } from "../harness/gateway-stack";
import { type OwnRedis, startOwnRedis } from "../harness/redis-server";
import { readMetric } from "../support/metrics";

const HOLD_TTL_SECONDS = 5;
/** Sequential answers per latency sample. */
const SAMPLE = 40;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/**
 * How far the median during the pause may be above the healthy one, from what the healthy phase
 * showed: twice the gap between its two samples (this machine's noise now), at least 10 ms or half
 * the healthy median for a loaded 2-core machine, and never more than the 50 ms this test allowed when
 * answers waited for their draws during a pause. A paused Redis that made answers wait would cost
 * each 250 ms (a late append) or a Draw round trip and its commit.
 */
function marginMs(healthy: [number, number]): number {
  const noise = Math.abs(healthy[0] - healthy[1]);
  return Math.min(50, Math.max(10, (healthy[0] + healthy[1]) / 4, 2 * noise));
}

describe("the draw journal's Redis paused", () => {
  let stack: GatewayStack;
  let redis: OwnRedis;

  beforeAll(async () => {
    redis = await startOwnRedis();
    stack = await startStack({
      backend: "postgresql",
      // No per-minute limit: the journal's copy is the only thing that asks Redis for a request.
      dataPlaneEnv: { REDIS_URL: redis.url, LEASE_MIN_REQUESTS_PER_SECOND: "5", DEFAULT_RPM_LIMIT: "0" },
      controlPlaneEnv: { REDIS_URL: redis.url, HOLD_TTL_SECONDS: String(HOLD_TTL_SECONDS), HOLD_SWEEP_INTERVAL_MS: "200" },
    });
  });

  afterAll(async () => {
    redis?.resume();
    await stack?.stop();
    await redis?.stop();
  });

  const metric = (name: string, labels?: Record<string, string>) => readMetric(stack.metricsUrl, name, labels);
  // The details are on the metrics port's /health (the public one says only whether it serves).
  const journalMode = async () => (await stack.dataPlaneHealth<{ draw_journal: string }>()).detail.draw_journal;
  const waitFor = async (done: () => boolean | Promise<boolean>, what: string) => {
    const deadline = Date.now() + 30_000;
    while (!(await done())) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };

  it("answers as fast as when healthy, and a data plane killed during the pause and restarted on its directory loses no debit", async () => {
    const project = await stack.createProject({ balanceUsd: "100.00" });
    const run = `journal-paused-${Date.now()}`;
    await stack.mockScript({ match: run, times: 0, usage: "random" });
    const answered = new Map<string, bigint>();
    const body = JSON.stringify({ model: "openai/gpt-4.1-mini", max_tokens: 32, messages: [{ role: "user", content: `${run} hello` }] });
    /** `count` answers one after another; the latency of each (ms). */
    const sequential = async (count: number) => {
      const latencies: number[] = [];
      for (let index = 0; index < count; index++) {
        const startedAt = performance.now();
        const response = await request(`${stack.url}/v1/chat/completions`, {
          method: "POST",
          headers: { "content-type": "application/json", authorization: `Bearer ${project.key}` },
          body,
        });
        const text = await response.body.text();
        latencies.push(performance.now() - startedAt);
        expect(response.statusCode).toBe(200);
        answered.set(String(response.headers["x-request-id"]), costToNano((JSON.parse(text) as { usage: { cost: number } }).usage.cost));
      }
      return latencies;
    };
    const loadUntil = async (concurrency: number, more: number, then?: () => Promise<void>) => {
      const load: AnswerLoad = startAnswerLoad({ url: stack.url, key: project.key, concurrency, tag: run });
      const from = load.answered.size;
      await waitFor(() => load.answered.size >= from + more, `${more} answers`);
      await then?.();
      await load.stop();
      for (const [id, told] of load.answered) answered.set(id, told);
    };

    // Healthy: the project is busy (a lease), every answer journalled and copied. Two samples: their gap is the noise.
    await loadUntil(8, 150);
    const keptBefore = await metric("gateway_draw_journal_appends_total", { outcome: "kept" });
    const healthy: [number, number] = [median(await sequential(SAMPLE)), median(await sequential(SAMPLE))];
    expect(await metric("gateway_draw_journal_appends_total", { outcome: "kept" })).toBeGreaterThanOrEqual(keptBefore + 2 * SAMPLE);
    await waitFor(async () => (await metric("gateway_draw_journal_replication_backlog")) === 0, "the copies to reach Redis");
    expect(await journalMode()).toBe("file+redis");

    // Paused from the first answer on: none of them waits, not even the one whose copy meets the hung Redis first.
    const leasedBefore = await metric("gateway_budget_lease_events_total", { event: "leased_request" });
    const keptAtPause = await metric("gateway_draw_journal_appends_total", { outcome: "kept" });
    redis.pause();
    const paused = median(await sequential(SAMPLE));
    const margin = marginMs(healthy);
    console.log(
      `journal paused: p50 healthy ${healthy.map((value) => value.toFixed(2)).join(" / ")} ms, paused ${paused.toFixed(2)} ms ` +
        `(n=${SAMPLE} each; margin ${margin.toFixed(1)} ms)`,
    );
    // Leased answers all along (not reserves), each kept in the local file, none of them waiting for its draw.
    expect(await metric("gateway_budget_lease_events_total", { event: "leased_request" })).toBeGreaterThanOrEqual(leasedBefore + SAMPLE);
    expect(await metric("gateway_draw_journal_appends_total", { outcome: "kept" })).toBeGreaterThanOrEqual(keptAtPause + SAMPLE);
    expect(await metric("gateway_draw_journal_appends_total", { outcome: "failed" })).toBe(0);
    expect(paused).toBeLessThan((healthy[0] + healthy[1]) / 2 + margin);
    // The copy met the hung Redis: one late batch opened its circuit; nothing is copied while it is open.
    await waitFor(async () => /^file \(Redis unreachable or late/.test(await journalMode()), "the copy's circuit to open");
    expect(await metric("gateway_draw_journal_circuit_open")).toBe(1);
    const replicatedWhilePaused = await metric("gateway_draw_journal_replicated_total");

    // SIGKILL during the pause, under load: the last answers' debits are in the local file only.
    const killed = stack.dataPlanes[0]!;
    await loadUntil(16, 100, async () => {
      expect(await metric("gateway_draw_journal_replicated_total")).toBe(replicatedWhilePaused);
      expect(await killed.stop("SIGKILL")).toBeNull();
    });
    // Restarted on its directory while Redis is still paused: it draws them itself, then serves.
    await stack.restartDataPlane(0);
    expect(await metric("gateway_draw_journal_recovered_total")).toBeGreaterThan(0);
    await loadUntil(8, 60);
    await waitFor(async () => /^file \(Redis unreachable or late/.test(await journalMode()), "the restarted one's circuit to open");

    redis.resume(); // the restarted data plane's probe closes its circuit: entries are copied again
    await waitFor(async () => (await journalMode()) === "file+redis", "the probe to close the circuit");
    expect(await metric("gateway_draw_journal_circuit_open")).toBe(0);
    const replicatedAfter = await metric("gateway_draw_journal_replicated_total");
    await loadUntil(8, 60);
    await waitFor(async () => (await metric("gateway_draw_journal_replicated_total")) > replicatedAfter, "copies after the thaw");

    // The restarted data plane drains (its lease goes back); the killed one's lease expires and the sweeper
    // applies its Redis copies (replays by now) before voiding it.
    expect(await stack.dataPlanes[0]!.stop()).toBe(0);
    await stack.waitHeldZero(project.projectId, HOLD_TTL_SECONDS * 1000 + 30_000);
    const onLedger = await stack.debitsByRequest(project.projectId); // throws on a request id debited twice
    const lost = [...answered.keys()].filter((id) => !onLedger.has(id));
    const wrong = [...answered].filter(([id, told]) => onLedger.has(id) && onLedger.get(id) !== told);
    expect(lost).toEqual([]);
    expect(wrong).toEqual([]);
    const balance = await stack.balance(project.projectId);
    expect(BigInt(balance.balance.nano)).toBe(100_000_000_000n - [...onLedger.values()].reduce((sum, debit) => sum + debit, 0n));
  });
});
