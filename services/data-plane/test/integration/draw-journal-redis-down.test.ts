// The draw journal's store down (docs/money.md, "A killed data plane"), without the local file
// (DRAW_JOURNAL_DIR=off; draw-journal-paused.test.ts has it): with Redis frozen, a leased answer
// whose draw the journal cannot keep waits for the draw to reach the ledger, so a data plane
// killed then still loses no answered debit; the control plane, unable to read an expired lease's
// journal, keeps the lease instead of voiding it, and applies the journal once Redis answers again
// (each debit once: draws that had landed are replays).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAnswerLoad } from "../harness/answer-load";
import { type GatewayStack, startStack } from "../harness/gateway-stack";
import { type OwnRedis, startOwnRedis } from "../harness/redis-server";
import { metricValue } from "../support/metrics";

const HOLD_TTL_SECONDS = 5;

describe("the draw journal's Redis down", () => {
  let stack: GatewayStack;
  let redis: OwnRedis;

  beforeAll(async () => {
    redis = await startOwnRedis();
    stack = await startStack({
      backend: "postgresql",
      dataPlaneEnv: { REDIS_URL: redis.url, LEASE_MIN_REQUESTS_PER_SECOND: "5", DEFAULT_RPM_LIMIT: "0", DRAW_JOURNAL_DIR: "off" },
      controlPlaneEnv: { REDIS_URL: redis.url, HOLD_TTL_SECONDS: String(HOLD_TTL_SECONDS), HOLD_SWEEP_INTERVAL_MS: "200" },
    });
  });

  afterAll(async () => {
    redis?.resume();
    await stack?.stop();
    await redis?.stop();
  });

  /** Answers whose debit the journal did not keep (no local file): sent and failed or late, or not sent (its circuit open). */
  const journalFailures = async () => {
    const text = await (await fetch(`${stack.metricsUrl}/metrics`)).text();
    const count = (outcome: string) => metricValue(text, "gateway_draw_journal_appends_total", { outcome });
    return count("failed");
  };

  it("answers wait for their draws, a SIGKILL loses none, and the expired lease waits for its journal", async () => {
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
    redis.pause(); // appends now go unanswered: those in flight wait 250 ms, then the circuit opens; every answer waits for its draw
    const frozenAt = load.answered.size;
    await waitFor(async () => load.answered.size >= frozenAt + 30 && (await journalFailures()) >= 30, "answers with the journal down");
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

    redis.resume(); // the journal is applied, then the lease is voided
    await stack.waitHeldZero(project.projectId, 30_000);
    const onLedger = await stack.debitsByRequest(project.projectId); // throws on a request id debited twice
    const lost = [...load.answered.keys()].filter((id) => !onLedger.has(id));
    const wrong = [...load.answered].filter(([id, told]) => onLedger.has(id) && onLedger.get(id) !== told);
    expect(lost).toEqual([]);
    expect(wrong).toEqual([]);
    expect((await stack.holds(project.projectId, "expired")).some((hold) => hold.lease)).toBe(true);
  });
});
