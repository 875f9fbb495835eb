// Chat latency while the per-minute limit's Redis hangs (issue 19, item 12):
// a stack whose data plane uses a redis-server of its own (another port, so
// the machine's Redis is never touched), measured with Redis healthy, then
// frozen (SIGSTOP) once the first check has timed out and /health says
// "local fallback", then thawed (SIGCONT) once /health says "redis" again.
// Prints the p50 and p99 of each phase. docs/benchmark.md ("Redis paused")
// has the figures.
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
  gatewayCpus: pinned ? "0" : undefined,
  loadCpus: pinned ? "1" : undefined,
});

/** What the data plane's /health says of the limit: "redis" or "local fallback (...)". */
async function rateLimitMode(): Promise<string> {
  // The details are on the metrics port's /health; the public one says only whether it serves.
  const health = (await (await fetch(`${stack.dataPlane.ready.metrics}/health`)).json()) as { detail: { rate_limit: string } };
  return health.detail.rate_limit;
}

async function until(mode: RegExp, target: Target, body: string): Promise<void> {
  for (let attempt = 0; attempt < 200; attempt++) {
    if (mode.test(await rateLimitMode())) return;
    // A request, so that a check meets the frozen Redis (a hang is only seen by a check that waits on it).
    await fetch(target.url, { method: "POST", headers: { "content-type": "application/json", ...target.headers }, body });
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`/health never said ${mode}: ${await rateLimitMode()}`);
}

const phase = async (label: string, target: Target, body: string, concurrency: number) => {
  const samples = await drive(target, body, concurrency, seconds);
  const { p50, p99 } = percentiles(samples.latencies);
  console.log(
    `concurrency ${String(concurrency).padStart(3)}  ${label.padEnd(14)} p50 ${p50.toFixed(2).padStart(7)} ms  p99 ${p99.toFixed(2).padStart(7)} ms  ` +
      `${(samples.ok / seconds).toFixed(0).padStart(6)} req/s  failed ${samples.failed}  (${await rateLimitMode()})`,
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
    await until(/^local fallback/, target, body); // the first timeout has been paid
    const paused = await phase("redis paused", target, body, concurrency);
    redis.resume();
    await until(/^redis$/, target, body); // the probe took the data plane back
    await phase("redis resumed", target, body, concurrency);
    console.log(`concurrency ${String(concurrency).padStart(3)}  p50 paused - healthy: ${(paused - healthy).toFixed(2)} ms`);
  }
} finally {
  redis.resume();
  await stack.stop();
  await redis.stop();
}
