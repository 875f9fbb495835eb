// What the draw journal costs a leased answer (docs/money.md, "A killed data plane"): the time from
// an append to Redis having it, through the data plane's own RedisDrawJournal, one at a time and with
// many answers finishing at once (auto-pipelined), and the data plane's CPU per append.
//
//   pnpm bench:journal                                  (Redis at BENCH_REDIS_URL, default the machine's)
//   BENCH_APPENDS=20000 BENCH_CONCURRENCY=1,64,256 pnpm bench:journal
import { randomUUID } from "node:crypto";
import { RedisDrawJournal } from "../../services/data-plane/src/billing/draw-journal";

const appends = Number(process.env.BENCH_APPENDS ?? 10_000);
const concurrencies = (process.env.BENCH_CONCURRENCY ?? "1,16,64,256").split(",").map(Number);
const url = process.env.BENCH_REDIS_URL ?? "redis://127.0.0.1:6379";

const draw = (leaseId: string, index: number) => ({
  requestId: `bench-${index}-${randomUUID()}`,
  leaseId,
  projectId: "bench",
  amountNano: 123_456n,
  holdNano: 123_456n,
  model: "openai/gpt-4.1-mini",
  accessPath: "openai",
  inputTokens: 120,
  outputTokens: 48,
  costParts: [
    { component: "input", units: 120, nano: 48_000n },
    { component: "output", units: 48, nano: 76_800n },
  ],
});

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;

async function run(concurrency: number): Promise<void> {
  const journal = new RedisDrawJournal(url);
  const leaseId = `lease:bench:${randomUUID()}`;
  // Until connected, appends fail fast (no offline queue): wait for the first one kept.
  while (!(await journal.append(draw(leaseId, -1)))) await new Promise((resolve) => setTimeout(resolve, 20));
  const latencies: number[] = [];
  let next = 0;
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < appends) {
        const index = next++;
        const sent = performance.now();
        if (!(await journal.append(draw(leaseId, index)))) throw new Error("an append was not kept");
        latencies.push(performance.now() - sent);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  latencies.sort((a, b) => a - b);
  journal.forget(leaseId);
  await journal.close();
  console.log(
    `concurrency ${String(concurrency).padStart(3)}: ${Math.round(appends / seconds)
      .toString()
      .padStart(6)} appends/s, latency p50 ${quantile(latencies, 0.5).toFixed(3)} ms, p99 ${quantile(latencies, 0.99).toFixed(3)} ms, ` +
      `client CPU ${(((cpu.user + cpu.system) / appends) | 0).toString()} µs/append`,
  );
}

console.log(`draw journal appends to ${url}, ${appends} per case`);
for (const concurrency of concurrencies) await run(concurrency);
