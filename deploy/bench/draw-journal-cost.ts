// What the draw journal costs a leased answer, and how long a debit lives only on the local disk
// (docs/money.md, "A killed data plane"), through the data plane's own LocalDrawJournal:
// - the append an answer waits for (one write(2) to the local file), its latency and CPU;
// - what an fsync (fdatasync) after each append would add, on the same directory's file system;
// - the replication delay: from an entry's local append to Redis acknowledging its copy, with appends
//   arriving at a steady rate in bursts (answers finishing together), no draw landing meanwhile (so
//   every entry is copied). A pod deleted with its volume, or a lost node, loses what is in that window.
//
//   pnpm bench:journal                                  (Redis at BENCH_REDIS_URL, default the machine's)
//   BENCH_SECONDS=5 BENCH_RATES=1000x1,5000x16,20000x64 BENCH_DIR=/var/tmp pnpm bench:journal
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { LocalDrawJournal } from "../../services/data-plane/src/billing/draw-journal";

const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const url = process.env.BENCH_REDIS_URL ?? "redis://127.0.0.1:6379";
const cases = (process.env.BENCH_RATES ?? "500x1,2000x8,5000x16,20000x64").split(",").map((text) => {
  const [rate, burst] = text.split("x").map(Number);
  return { rate: rate!, burst: burst ?? 1 };
});
const base = process.env.BENCH_DIR ?? os.tmpdir();

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
const ms = (value: number) => `${value.toFixed(3)} ms`;

/** The append alone, and the append followed by fdatasync, one at a time: microseconds each. */
function localCost(): void {
  const dir = fs.mkdtempSync(path.join(base, "journal-bench-"));
  const journal = new LocalDrawJournal({ dir: path.join(dir, "local") });
  const appends: number[] = [];
  const leaseId = `lease:bench:${randomUUID()}`;
  const cpuBefore = process.cpuUsage();
  for (let index = 0; index < 20_000; index++) {
    const entry = draw(leaseId, index);
    const started = performance.now();
    if (!journal.appendNow(entry)) throw new Error("an append was not kept");
    appends.push(performance.now() - started);
    journal.landed(entry.requestId);
  }
  const cpu = process.cpuUsage(cpuBefore);
  appends.sort((a, b) => a - b);
  void journal.close();
  // fsync per answer: the same line written, then fdatasync, on a file of the same file system.
  const file = path.join(dir, "fsync.jsonl");
  const fd = fs.openSync(file, "a");
  const line = Buffer.from(`${JSON.stringify({ ...draw(leaseId, 0), amountNano: "123456", holdNano: "123456", costParts: [] })}\n`);
  const synced: number[] = [];
  for (let index = 0; index < 2_000; index++) {
    const started = performance.now();
    fs.writeSync(fd, line);
    fs.fdatasyncSync(fd);
    synced.push(performance.now() - started);
  }
  fs.closeSync(fd);
  fs.rmSync(dir, { recursive: true, force: true });
  synced.sort((a, b) => a - b);
  console.log(
    `local append (write(2), page cache): p50 ${ms(quantile(appends, 0.5))}, p99 ${ms(quantile(appends, 0.99))}, ` +
      `CPU ${(((cpu.user + cpu.system) / appends.length) | 0).toString()} µs/append (encoding included)`,
  );
  console.log(
    `append + fdatasync (what an fsync per answer would cost, ${base}): p50 ${ms(quantile(synced, 0.5))}, p99 ${ms(quantile(synced, 0.99))}`,
  );
}

/** Appends at `rate` a second, `burst` at a time, for `seconds`: the delay from each append to its copy in Redis. */
async function replication(rate: number, burst: number): Promise<void> {
  const dir = fs.mkdtempSync(path.join(base, "journal-bench-"));
  const journal = new LocalDrawJournal({ dir: path.join(dir, "replicated"), redisUrl: url });
  const delays: number[] = [];
  const sends: number[] = [];
  journal.onReplicated = (acked, sent) => {
    delays.push(acked);
    sends.push(sent);
  };
  const leaseId = `lease:bench:${randomUUID()}`;
  // Connected first: until then the copy's circuit is open and entries wait.
  while (journal.circuit.open || journal.stats.replicated === 0) {
    if (journal.stats.kept === 0) journal.appendNow(draw(leaseId, -1));
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  delays.length = 0;
  sends.length = 0;
  const failedBefore = journal.replicator!.stats.failedBatches;
  const started = performance.now();
  let appended = 0;
  while (performance.now() - started < seconds * 1000) {
    const due = Math.floor(((performance.now() - started) / 1000) * rate);
    while (appended + burst <= due) {
      for (let index = 0; index < burst; index++) journal.appendNow(draw(leaseId, appended++));
      await new Promise((resolve) => setImmediate(resolve)); // the next burst is another turn of the event loop
    }
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  while (journal.backlog > 0) await new Promise((resolve) => setTimeout(resolve, 10));
  const failed = journal.replicator!.stats.failedBatches - failedBefore;
  journal.forget(leaseId);
  await journal.close();
  fs.rmSync(dir, { recursive: true, force: true });
  delays.sort((a, b) => a - b);
  sends.sort((a, b) => a - b);
  console.log(
    `${String(rate).padStart(6)} appends/s in bursts of ${String(burst).padStart(3)}: ${delays.length} copied, ` +
      `append -> batch sent p50 ${ms(quantile(sends, 0.5))}, p99 ${ms(quantile(sends, 0.99))}; ` +
      `append -> Redis ack p50 ${ms(quantile(delays, 0.5))}, p99 ${ms(quantile(delays, 0.99))}, max ${ms(delays.at(-1) ?? 0)}; batches failed ${failed}`,
  );
}

console.log(`draw journal in ${base}, copied to ${url}; ${seconds} s per rate`);
localCost();
for (const { rate, burst } of cases) await replication(rate, burst);
