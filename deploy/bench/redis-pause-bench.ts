// Chat latency while the data plane's Redis hangs (issue 19, item 12; issue 33,
// item 8): a stack whose data plane uses a redis-server of its own (another
// port, so the machine's Redis is never touched) for both the per-minute limit
// and the draw journal (REDIS_URL names the one Redis of both), its project busy
// enough for budget leases, so every answer is checked against the limit and
// journalled. Measured with Redis healthy, then frozen (SIGSTOP) once the first
// check and the first append have timed out (/health: rate_limit "local
// fallback", draw_journal "file (...)": the debits go to the local file), then thawed (SIGCONT) once both say
// "redis" again. Prints the p50 and p99 of each phase and what the journal did
// in it. docs/benchmark.md ("Redis paused") has the figures.
//
//   tsx deploy/bench/redis-pause-bench.ts [--seconds 8] [--warmup 5] [--concurrency 1,16]
import os from "node:os";
import { parseArgs } from "node:util";
import { startOwnRedis } from "../../services/data-plane/test/harness/redis-server";
import { BENCH_POSTGRES_URL, BenchStack } from "./bench-stack";
import { chatBody, drive, percentiles, type Target } from "./load";
import { pin, tasksetAvailable } from "./process-stats";

const { values: args } = parseArgs({
  options: {
    seconds: { type: "string", default: "8" },
    warmup: { type: "string", default: "5" },
    concurrency: { type: "string", default: "1,16" },
    model: { type: "string", default: "gpt-4.1-mini" },
  },
});
const seconds = Number(args.seconds);
const concurrencies = args.concurrency.split(",").map(Number);
const pinned = tasksetAvailable() && os.cpus().length >= 2;

const redis = await startOwnRedis();
const stack = new BenchStack({
  backend: "postgresql",
  postgresUrl: BENCH_POSTGRES_URL,
  redisUrl: redis.url,
  // Leases from 5 answers a second (20 by default): on a loaded machine the healthy phase at
  // concurrency 1 may run below 20 a second, and would then measure reserves, not leased answers.
  dataPlaneEnv: { LEASE_MIN_REQUESTS_PER_SECOND: "5" },
  gatewayCpus: pinned ? "0" : undefined,
  loadCpus: pinned ? "1" : undefined,
});

/** What the data plane's /health says of the limit ("redis" or "local fallback (...)") and of the journal ("redis", or "file (...)" / "bypassed (...)"). */
async function modes(): Promise<{ rateLimit: string; journal: string | undefined }> {
  // The details are on the metrics port's /health (issue 33); a data plane older than that has them on its public one.
  const details = await fetch(`${stack.dataPlane.ready.metrics}/health`).catch(() => undefined);
  const answer = details?.ok ? details : await fetch(`${stack.dataPlane.ready.url}/health`);
  const health = (await answer.json()) as { detail: { rate_limit: string; draw_journal?: string } };
  // A data plane older than the journal's circuit (issue 33) says nothing of the journal.
  return { rateLimit: health.detail.rate_limit, journal: health.detail.draw_journal };
}

async function until(rateLimit: RegExp, journal: RegExp, target: Target, body: string): Promise<void> {
  const reached = ({ rateLimit: limitMode, journal: journalMode }: Awaited<ReturnType<typeof modes>>) =>
    rateLimit.test(limitMode) && (journalMode === undefined || journal.test(journalMode));
  for (let attempt = 0; attempt < 200; attempt++) {
    if (reached(await modes())) return;
    // A request, so that a check and an append meet the frozen Redis (a hang is only seen by a call that waits on it).
    await fetch(target.url, { method: "POST", headers: { "content-type": "application/json", ...target.headers }, body });
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`/health never said ${rateLimit} and ${journal}: ${JSON.stringify(await modes())}`);
}

/** The data plane's counters that say which way its answers went: journalled, not, or reserved without a lease. */
async function counters(): Promise<Record<string, number>> {
  const text = await (await fetch(`${stack.dataPlane.ready.metrics}/metrics`)).text();
  const read = (pattern: RegExp) => Number(pattern.exec(text)?.[1] ?? 0);
  return {
    leased: read(/^gateway_budget_lease_events_total\{event="leased_request"\} (\S+)$/m),
    kept: read(/^gateway_draw_journal_appends_total\{outcome="kept"\} (\S+)$/m),
    failed: read(/^gateway_draw_journal_appends_total\{outcome="failed"\} (\S+)$/m),
    file: read(/^gateway_draw_journal_appends_total\{outcome="file"\} (\S+)$/m),
    // Not sent to Redis, its circuit open (gateway_draw_journal_bypassed_total; an older data plane counted them as an outcome).
    bypassed:
      read(/^gateway_draw_journal_bypassed_total (\S+)$/m) || read(/^gateway_draw_journal_appends_total\{outcome="bypassed"\} (\S+)$/m),
    // The Draw calls' round trips: what an answer that waits for its draw waits for.
    drawSeconds: read(/^gateway_control_plane_call_seconds_sum\{method="Draw",outcome="ok"\} (\S+)$/m),
    draws: read(/^gateway_control_plane_call_seconds_count\{method="Draw",outcome="ok"\} (\S+)$/m),
  };
}

const phase = async (label: string, target: Target, body: string, concurrency: number) => {
  const before = await counters();
  const samples = await drive(target, body, concurrency, seconds);
  const after = await counters();
  const { p50, p99 } = percentiles(samples.latencies);
  const delta = (name: string) => after[name]! - before[name]!;
  const { rateLimit, journal } = await modes();
  console.log(
    `concurrency ${String(concurrency).padStart(3)}  ${label.padEnd(14)} p50 ${p50.toFixed(2).padStart(7)} ms  p99 ${p99.toFixed(2).padStart(7)} ms  ` +
      `${(samples.ok / seconds).toFixed(0).padStart(6)} req/s  failed ${samples.failed}  ` +
      `leased ${delta("leased")}, journal kept ${delta("kept")} file ${delta("file")} failed ${delta("failed")} bypassed ${delta("bypassed")}, ` +
      `Draw calls ${delta("draws")} (mean ${((1000 * delta("drawSeconds")) / Math.max(1, delta("draws"))).toFixed(2)} ms)  ` +
      `(limit: ${rateLimit}; journal: ${journal ?? "not reported"})`,
  );
  return p50;
};

try {
  await stack.start();
  await stack.floor.stop(); // not measured here
  if (pinned) pin(process.pid, "1");
  const target: Target = { url: `${stack.dataPlane.ready.url}/v1/chat/completions`, headers: { authorization: `Bearer ${stack.key}` } };
  const body = chatBody(args.model, "json");
  await drive(target, body, 16, Number(args.warmup));
  for (const concurrency of concurrencies) {
    const healthy = await phase("redis healthy", target, body, concurrency);
    redis.pause();
    await until(/^local fallback/, /^(file|bypassed)/, target, body); // the first timeouts have been paid
    const paused = await phase("redis paused", target, body, concurrency);
    redis.resume();
    await until(/^redis$/, /^redis$/, target, body); // the probes took the data plane back
    await phase("redis resumed", target, body, concurrency);
    console.log(`concurrency ${String(concurrency).padStart(3)}  p50 paused - healthy: ${(paused - healthy).toFixed(2)} ms`);
  }
} finally {
  redis.resume();
  await stack.stop();
  await redis.stop();
}
