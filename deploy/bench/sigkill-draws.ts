// Answered debits lost by data planes killed with SIGKILL under load (docs/money.md, "A killed data
// plane"): the test stack (PostgreSQL, Redis, the mock provider, one control plane, KILLS data planes)
// drives each data plane with back-to-back chat completions until it has answered for a while, kills
// it, and after the leases expired and the journals were applied compares every answer a client got
// (its usage.cost) with the ledger. The suite runs a smaller load of the same
// (draw-journal-sigkill.test.ts).
//
//   pnpm bench:sigkill                                   (3 kills, 128 clients, 3 s of load each)
//   BENCH_KILLS=5 BENCH_CONCURRENCY=256 BENCH_LOAD_MS=4000 pnpm bench:sigkill
//   BENCH_NO_JOURNAL=1 pnpm bench:sigkill                (the same without the journal: what it loses)
import { startAnswerLoad } from "../../services/data-plane/test/harness/answer-load";
import { startStack } from "../../services/data-plane/test/harness/gateway-stack";

const kills = Number(process.env.BENCH_KILLS ?? 3);
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 128);
const loadMs = Number(process.env.BENCH_LOAD_MS ?? 3000);
const redisUrl = process.env.BENCH_REDIS_URL ?? "redis://127.0.0.1:6379";
const journal = !process.env.BENCH_NO_JOURNAL;
const HOLD_TTL_SECONDS = 3;

const stack = await startStack({
  backend: "postgresql",
  dataPlanes: kills,
  dataPlaneEnv: { ...(journal ? { REDIS_URL: redisUrl } : {}), DEFAULT_RPM_LIMIT: "0", LOG_LEVEL: "error" },
  controlPlaneEnv: { REDIS_URL: redisUrl, HOLD_TTL_SECONDS: String(HOLD_TTL_SECONDS), HOLD_SWEEP_INTERVAL_MS: "200", LOG_LEVEL: "error" },
});
try {
  const project = await stack.createProject({ balanceUsd: "1000.00" });
  const run = `bench-sigkill-${Date.now()}`;
  await stack.mockScript({ match: run, times: 0, usage: "random" });
  const answered = new Map<string, bigint>();
  for (let victim = 0; victim < kills; victim++) {
    const load = startAnswerLoad({ url: stack.dataPlanes[victim]!.ready.url!, key: project.key, concurrency, tag: run });
    // The rate is measured over the last second before the kill, once the load has warmed up.
    await new Promise((resolve) => setTimeout(resolve, loadMs - 1000));
    const before = load.answered.size;
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const rate = load.answered.size - before;
    await stack.dataPlanes[victim]!.stop("SIGKILL");
    await load.stop();
    for (const [id, told] of load.answered) answered.set(id, told);
    console.log(`data plane ${victim}: killed at ${rate} answers/s, ${load.answered.size} answers in all`);
  }
  await stack.waitHeldZero(project.projectId, HOLD_TTL_SECONDS * 1000 + 30_000);
  const onLedger = await stack.debitsByRequest(project.projectId); // throws on a request id debited twice
  const lost = [...answered].filter(([id]) => !onLedger.has(id));
  const wrong = [...answered].filter(([id, told]) => onLedger.has(id) && onLedger.get(id) !== told);
  const lostNano = lost.reduce((sum, [, told]) => sum + told, 0n);
  console.log(
    `${journal ? "with" : "WITHOUT"} the draw journal: ${kills} SIGKILLs, ${answered.size} answers; lost ${lost.length} answered debits ($${(Number(lostNano) / 1e9).toFixed(6)}), ` +
      `${wrong.length} billed other than told, 0 doubles, ${onLedger.size - (answered.size - lost.length)} debits of requests whose answer was cut`,
  );
} finally {
  await stack.stop();
}
