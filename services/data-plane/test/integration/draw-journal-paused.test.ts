// A paused Redis under the draw journal (issue 33, item 8; docs/money.md, "Journal store down or
// slow"): the first late append opens the journal's circuit, after which leased answers no longer wait
// for Redis: each debit goes to the data plane's local journal file and the answer leaves, so answers
// stay within a small margin of their healthy latency (measured in the same test) instead of paying the
// 250 ms timeout each. A data plane SIGKILLed during the pause, and the one restarted in its place on
// the same directory (it draws what the killed one left in the file), lose no answered debit and bill
// none twice once Redis is back (journal entries from before the pause are replays of landed draws);
// the restarted one's probe closes its circuit after SIGCONT.
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AnswerLoad, startAnswerLoad } from "../harness/answer-load";
import { costToNano, type GatewayStack, startStack } from "../harness/gateway-stack";
import { type OwnRedis, startOwnRedis } from "../harness/redis-server";
import { readMetric } from "../support/metrics";

const HOLD_TTL_SECONDS = 5;
/** Sequential answers per latency sample. */
const SAMPLE = 40;
/**
 * How far the median during the pause may be above the healthy one: generous for a loaded 2-core
 * machine (a draw's round trip to the control plane and its commit is a few ms), far below the 250 ms
 * every answer paid before the circuit.
 */
const MARGIN_MS = 50;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

describe("the draw journal's Redis paused", () => {
  let stack: GatewayStack;
  let redis: OwnRedis;

  beforeAll(async () => {
    redis = await startOwnRedis();
    stack = await startStack({
      backend: "postgresql",
      // No per-minute limit: the journal is the only thing that asks Redis on a request's way.
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

  it("answers within a small margin of healthy after the first late append, and every answered debit is on the ledger once", async () => {
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

    // Healthy: the project is busy (a lease), every answer journalled.
    await loadUntil(8, 150);
    const keptBefore = await metric("gateway_draw_journal_appends_total", { outcome: "kept" });
    const leasedBefore = await metric("gateway_budget_lease_events_total", { event: "leased_request" });
    const healthy = median(await sequential(SAMPLE));
    // Should one not be kept, say whether it came from a reserve, went to the file, or waited for its draw.
    const outcomes = `leased +${(await metric("gateway_budget_lease_events_total", { event: "leased_request" })) - leasedBefore}, file ${await metric("gateway_draw_journal_appends_total", { outcome: "file" })}, failed ${await metric("gateway_draw_journal_appends_total", { outcome: "failed" })}`;
    expect(await metric("gateway_draw_journal_appends_total", { outcome: "kept" }), outcomes).toBeGreaterThanOrEqual(keptBefore + SAMPLE);
    expect(await journalMode()).toBe("redis");

    const failedBefore = await metric("gateway_draw_journal_appends_total", { outcome: "failed" });
    const fileBefore = await metric("gateway_draw_journal_appends_total", { outcome: "file" });
    redis.pause();
    // One answer at a time until one appends to the paused Redis and pays its timeout: the circuit opens. On a
    // loaded machine the first may come from a reserve instead of the lease (no append), hence more than one.
    for (let tries = 0; tries < 20 && !/^file/.test(await journalMode()); tries++) await sequential(1);
    expect(await journalMode()).toMatch(/^file \(Redis unreachable or late/);
    expect(await metric("gateway_draw_journal_appends_total", { outcome: "file" })).toBe(fileBefore + 1); // the first late append
    expect(await metric("gateway_draw_journal_appends_total", { outcome: "failed" })).toBe(failedBefore);
    expect(await metric("gateway_draw_journal_circuit_open")).toBe(1);
    const bypassedBefore = await metric("gateway_draw_journal_bypassed_total");
    const paused = median(await sequential(SAMPLE));
    console.log(`journal paused: p50 healthy ${healthy.toFixed(2)} ms, paused ${paused.toFixed(2)} ms (n=${SAMPLE} each)`);
    // Leased answers all along (not reserves), none of them asking Redis.
    expect(await metric("gateway_budget_lease_events_total", { event: "leased_request" })).toBeGreaterThanOrEqual(
      leasedBefore + 2 * SAMPLE,
    );
    expect(await metric("gateway_draw_journal_bypassed_total")).toBeGreaterThanOrEqual(bypassedBefore + SAMPLE);
    expect(await metric("gateway_draw_journal_appends_total", { outcome: "file" })).toBeGreaterThanOrEqual(fileBefore + 1 + SAMPLE);
    expect(await metric("gateway_draw_journal_appends_total", { outcome: "failed" })).toBe(failedBefore); // none waited for its draw
    expect(paused).toBeLessThan(healthy + MARGIN_MS);

    // SIGKILL during the pause, under load: what it answered and had not drawn is in its file.
    await loadUntil(16, 100, async () => {
      expect(await stack.dataPlanes[0]!.stop("SIGKILL")).toBeNull();
    });
    // Restarted on the same directory while Redis is still paused: it draws what the killed one left
    // there, and its first late append opens its own circuit.
    await stack.restartDataPlane(0);
    await loadUntil(8, 60);
    expect(await journalMode()).toMatch(/^file/);

    redis.resume(); // the restarted data plane's probe closes its circuit: answers are journalled again
    await waitFor(async () => (await journalMode()) === "redis", "the probe to close the circuit");
    expect(await metric("gateway_draw_journal_circuit_open")).toBe(0);
    const keptAfter = await metric("gateway_draw_journal_appends_total", { outcome: "kept" });
    await loadUntil(8, 60);
    expect(await metric("gateway_draw_journal_appends_total", { outcome: "kept" })).toBeGreaterThan(keptAfter);

    // The restarted data plane drains (its lease goes back); the killed one's lease expires and the sweeper
    // applies its journal (entries from before the pause: replays) before voiding it.
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
