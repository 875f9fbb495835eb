// What the hold's one pass over the forwarded body costs (bodyMarks, docs/benchmark.md "The hold's scans in
// one pass"): µs per call on the size benchmark's prompts, in this process, no stack. The body is the
// chat body size-bench.ts sends, as the data plane forwards it (the same JSON text).
//
//   tsx deploy/bench/body-marks-cost.ts            (1 KB, 100 KB, 1 MB; about 2 s per size)
//   BENCH_SIZES=1048576 BENCH_MS=5000 BENCH_OUT=<file> tsx deploy/bench/body-marks-cost.ts
import os from "node:os";
import path from "node:path";
import { bodyMarks } from "../../services/data-plane/src/billing/hold-estimate";
import { repositoryRoot } from "../local/service-process";
import { chatBodyWithPrompt } from "./load";
import { writeResults } from "./results-file";

const sizes = (process.env.BENCH_SIZES ?? "1024,102400,1048576").split(",").map(Number);
const budgetMs = Number(process.env.BENCH_MS ?? 2000);
const out = process.env.BENCH_OUT ?? path.join(repositoryRoot, "deploy/bench/results/latest-body-marks.json");
const rows: { bytes: number; calls: number; microsPerCall: number }[] = [];

for (const size of sizes) {
  const body = chatBodyWithPrompt("gpt-4.1-mini", "json", size);
  for (let i = 0; i < 50; i++) bodyMarks(body); // warm-up: optimized before it is timed
  let calls = 0;
  const started = process.hrtime.bigint();
  const until = started + BigInt(budgetMs) * 1_000_000n;
  let now = started;
  while (now < until) {
    for (let i = 0; i < 10; i++) bodyMarks(body);
    calls += 10;
    now = process.hrtime.bigint();
  }
  const micros = Number(now - started) / 1_000 / calls;
  rows.push({ bytes: size, calls, microsPerCall: micros });
  console.log(`${size} bytes: ${micros.toFixed(2)} µs per bodyMarks (${calls} calls), ${((micros * 1000) / size).toFixed(2)} ns/byte`);
}

writeResults(out, {
  date: new Date().toISOString(),
  machine: { cpuModel: os.cpus()[0]?.model, node: process.version },
  budgetMsPerSize: budgetMs,
  rows,
});
