// Answered debits lost by data planes killed with SIGKILL under load (docs/money.md, "A killed data
// plane"): the test stack (PostgreSQL, Redis, the mock provider, one control plane, KILLS data planes)
// drives each data plane with back-to-back chat completions until it has answered for a while, kills
// it, starts it again on its journal directory (a container restarted in its pod, the volume kept),
// and after the leases expired and the journals were applied compares every answer a client got
// (its usage.cost) with the ledger. It also prints, from each data plane's metrics just before the
// kill, the delay from a journal entry's local append to its copy in Redis (histogram buckets). The
// suite runs a smaller load of the same (draw-journal-sigkill.test.ts).
//
//   pnpm bench:sigkill                                   (3 kills, 128 clients, 3 s of load each)
//   BENCH_KILLS=5 BENCH_CONCURRENCY=256 BENCH_LOAD_MS=4000 pnpm bench:sigkill
//   BENCH_NO_RESTART=1 pnpm bench:sigkill                (not started again: a pod deleted with its volume, what the copy to Redis misses)
//   BENCH_NO_JOURNAL=1 pnpm bench:sigkill                (DRAW_JOURNAL_DIR=off: what it loses without the journal)
import { startAnswerLoad } from "../../services/data-plane/test/harness/answer-load";
import { startStack } from "../../services/data-plane/test/harness/gateway-stack";

const kills = Number(process.env.BENCH_KILLS ?? 3);
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 128);
const loadMs = Number(process.env.BENCH_LOAD_MS ?? 3000);
const redisUrl = process.env.BENCH_REDIS_URL ?? "redis://127.0.0.1:6379";
const journal = !process.env.BENCH_NO_JOURNAL;
const restart = journal && !process.env.BENCH_NO_RESTART;
const HOLD_TTL_SECONDS = 3;

/** The replication histogram's cumulative buckets of `stage` (upper bound in ms -> count) on one data plane now. */
async function replicationBuckets(metricsUrl: string, stage: "sent" | "acknowledged"): Promise<Map<number, number>> {
  const text = await (await fetch(`${metricsUrl}/metrics`)).text();
  const buckets = new Map<number, number>();
  const pattern = new RegExp(`^gateway_draw_journal_replication_seconds_bucket\\{le="([^"]+)",stage="${stage}"\\} (\\S+)$`, "gm");
  for (const [, le, count] of text.matchAll(pattern)) buckets.set(le === "+Inf" ? Infinity : Number(le) * 1000, Number(count));
  return buckets;
}

/** The smallest bucket bound holding at least `q` of the samples. */
function bucketQuantile(buckets: Map<number, number>, q: number): number {
  const total = buckets.get(Infinity) ?? 0;
  for (const [bound, count] of [...buckets].sort(([a], [b]) => a - b)) if (count >= q * total) return bound;
  return Infinity;
}

const stack = await startStack({
  backend: "postgresql",
  dataPlanes: kills,
  dataPlaneEnv: { REDIS_URL: redisUrl, ...(journal ? {} : { DRAW_JOURNAL_DIR: "off" }), DEFAULT_RPM_LIMIT: "0", LOG_LEVEL: "error" },
  controlPlaneEnv: { REDIS_URL: redisUrl, HOLD_TTL_SECONDS: String(HOLD_TTL_SECONDS), HOLD_SWEEP_INTERVAL_MS: "200", LOG_LEVEL: "error" },
});
try {
  const project = await stack.createProject({ balanceUsd: "1000.00" });
  const run = `bench-sigkill-${Date.now()}`;
  await stack.mockScript({ match: run, times: 0, usage: "random" });
  const answered = new Map<string, bigint>();
  const replication = { sent: new Map<number, number>(), acknowledged: new Map<number, number>() };
  for (let victim = 0; victim < kills; victim++) {
    const load = startAnswerLoad({ url: stack.dataPlanes[victim]!.ready.url!, key: project.key, concurrency, tag: run });
    // The rate is measured over the last second before the kill, once the load has warmed up.
    await new Promise((resolve) => setTimeout(resolve, loadMs - 1000));
    const before = load.answered.size;
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const rate = load.answered.size - before;
    const metricsUrl = stack.dataPlanes[victim]!.ready.metrics!;
    for (const stage of journal ? (["sent", "acknowledged"] as const) : [])
      for (const [bound, count] of await replicationBuckets(metricsUrl, stage)) {
        const buckets = replication[stage];
        buckets.set(bound, (buckets.get(bound) ?? 0) + count);
      }
    await stack.dataPlanes[victim]!.stop("SIGKILL");
    await load.stop();
    for (const [id, told] of load.answered) answered.set(id, told);
    let recovered = "";
    if (restart) {
      await stack.restartDataPlane(victim);
      const text = await (await fetch(`${stack.dataPlanes[victim]!.ready.metrics}/metrics`)).text();
      recovered = `, ${/^gateway_draw_journal_recovered_total (\S+)$/m.exec(text)?.[1] ?? "?"} journal entries drawn again at restart`;
    }
    console.log(`data plane ${victim}: killed at ${rate} answers/s, ${load.answered.size} answers in all${recovered}`);
  }
  if (journal)
    for (const stage of ["sent", "acknowledged"] as const) {
      const buckets = replication[stage];
      const copies = buckets.get(Infinity) ?? 0;
      const within = (ms: number) => `${(((buckets.get(ms) ?? 0) / Math.max(1, copies)) * 100).toFixed(1)}% within ${ms} ms`;
      console.log(
        `journal copies to Redis, append -> ${stage === "sent" ? "batch written" : "ack read"}: ${copies} copies, p50 <= ${bucketQuantile(buckets, 0.5)} ms, ` +
          `p99 <= ${bucketQuantile(buckets, 0.99)} ms (histogram buckets); ${within(1)}, ${within(5)}, ${within(25)}`,
      );
    }
  // The restarted data planes drain (their own leases go back); the killed ones' leases expire.
  for (const dataPlane of restart ? stack.dataPlanes : []) await dataPlane.stop();
  await stack.waitHeldZero(project.projectId, HOLD_TTL_SECONDS * 1000 + 30_000);
  const onLedger = await stack.debitsByRequest(project.projectId); // throws on a request id debited twice
  const lost = [...answered].filter(([id]) => !onLedger.has(id));
  const wrong = [...answered].filter(([id, told]) => onLedger.has(id) && onLedger.get(id) !== told);
  const lostNano = lost.reduce((sum, [, told]) => sum + told, 0n);
  console.log(
    `${journal ? `with the draw journal, ${restart ? "each restarted on its directory" : "NOT restarted (a pod deleted with its volume)"}` : "WITHOUT the draw journal"}: ${kills} SIGKILLs, ${answered.size} answers; lost ${lost.length} answered debits ($${(Number(lostNano) / 1e9).toFixed(6)}), ` +
      `${wrong.length} billed other than told, 0 doubles, ${onLedger.size - (answered.size - lost.length)} debits of requests whose answer was cut`,
  );
} finally {
  await stack.stop();
}
