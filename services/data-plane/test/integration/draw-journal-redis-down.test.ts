// The draw journal's Redis down (docs/money.md, "A killed data plane"): with Redis frozen, leased
// answers are kept in the local journal file and leave without waiting; a data plane killed then has
// its last debits in that file only. The control plane, unable to read the expired lease's Redis copy,
// keeps the lease instead of voiding it; the data plane started again on its directory draws what the
// file holds into that lease, and once Redis answers again the journal is applied (each debit once:
// draws that had landed are replays) and the lease voided.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAnswerLoad } from "../harness/answer-load";
import { type GatewayStack, startStack } from "../harness/gateway-stack";
import { type OwnRedis, startOwnRedis } from "../harness/redis-server";
import { metricValue, readMetric } from "../support/metrics";

const HOLD_TTL_SECONDS = 5;

describe("the draw journal's Redis down", () => {
  let stack: GatewayStack;
  let redis: OwnRedis;

  beforeAll(async () => {
    redis = await startOwnRedis();
    stack = await startStack({
      backend: "postgresql",
      dataPlaneEnv: { REDIS_URL: redis.url, LEASE_MIN_REQUESTS_PER_SECOND: "5", DEFAULT_RPM_LIMIT: "0" },
      controlPlaneEnv: { REDIS_URL: redis.url, HOLD_TTL_SECONDS: String(HOLD_TTL_SECONDS), HOLD_SWEEP_INTERVAL_MS: "200" },
    });
  });

  afterAll(async () => {
    redis?.resume();
    await stack?.stop();
    await redis?.stop();
  });

  /** Answers kept in the local journal file, and whether its copy to Redis has its circuit open. */
  const journal = async () => {
    const text = await (await fetch(`${stack.metricsUrl}/metrics`)).text();
    return {
      kept: metricValue(text, "gateway_draw_journal_appends_total", { outcome: "kept" }),
      failed: metricValue(text, "gateway_draw_journal_appends_total", { outcome: "failed" }),
      circuitOpen: metricValue(text, "gateway_draw_journal_circuit_open") === 1,
    };
  };

  it("answers are kept locally, a SIGKILL and a restart on the directory lose none, and the expired lease waits for its journal", async () => {
    const project = await stack.createProject({ balanceUsd: "100.00" });
    const run = `journal-down-${Date.now()}`;
    await stack.mockScript({ match: run, times: 0, usage: "random" });
    const load = startAnswerLoad({ url: stack.url, key: project.key, concurrency: 16, tag: run });
    const waitFor = async (done: () => boolean | Promise<boolean>, what: string) => {
      const deadline = Date.now() + 30_000;
      while (!(await done())) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    };
    await waitFor(() => load.answered.size >= 100, "answers with the journal up");
    redis.pause(); // copies now go unanswered: the batch in flight waits 250 ms, then the circuit opens
    const frozenAt = load.answered.size;
    const keptAtFreeze = (await journal()).kept;
    await waitFor(
      async () => load.answered.size >= frozenAt + 30 && (await journal()).circuitOpen && (await journal()).kept >= keptAtFreeze + 30,
      "answers with the journal's Redis down",
    );
    expect((await journal()).failed).toBe(0); // every one of them kept locally before it left
    expect(await stack.dataPlanes[0]!.stop("SIGKILL")).toBeNull();
    const killedAt = Date.now();
    await load.stop();

    // The lease expires after the TTL; its journal cannot be read (1 s timeout), so the sweeper keeps it
    // (renewed once per TTL, for at most four) instead of voiding it: kept twice, it is still active.
    const deferrals = async () => {
      const text = await (await fetch(`${stack.controlPlaneMetricsUrl}/metrics`)).text();
      return Number(/^gateway_draw_journal_deferrals_total (\S+)$/m.exec(text)?.[1] ?? 0);
    };
    await waitFor(async () => (await deferrals()) >= 2, "the sweeper to keep the lease twice");
    expect((await stack.holds(project.projectId, "active")).some((hold) => hold.lease)).toBe(true);
    expect(Date.now() - killedAt).toBeGreaterThan(HOLD_TTL_SECONDS * 1000);

    // Started again on its directory (Redis still frozen): it draws what its predecessor's file holds.
    await stack.restartDataPlane(0);
    expect(await readMetric(stack.metricsUrl, "gateway_draw_journal_recovered_total")).toBeGreaterThan(0);
    await waitFor(async () => (await readMetric(stack.metricsUrl, "gateway_draws_under_way")) === 0, "the recovered draws to land");

    redis.resume(); // the journal is applied (replays by now), then the lease is voided
    expect(await stack.dataPlanes[0]!.stop()).toBe(0);
    await stack.waitHeldZero(project.projectId, 30_000);
    const onLedger = await stack.debitsByRequest(project.projectId); // throws on a request id debited twice
    const lost = [...load.answered.keys()].filter((id) => !onLedger.has(id));
    const wrong = [...load.answered].filter(([id, told]) => onLedger.has(id) && onLedger.get(id) !== told);
    expect(lost).toEqual([]);
    expect(wrong).toEqual([]);
    expect((await stack.holds(project.projectId, "expired")).some((hold) => hold.lease)).toBe(true);
  });
});
