// What a long routing list costs the data plane (issue 33, item 2): one chat request whose
// `service.route` (then `service.allow`) holds --entries ids, sent with the stack's key, while
// GET /health is probed one request after another. Prints, for each list, the answer's status, time
// and size, and /health's latency during it (median and worst) next to its latency before (idle).
//
//   tsx deploy/bench/routing-lists-bench.ts [--entries 100000] [--postgres] [--out <file>]
import path from "node:path";
import { parseArgs } from "node:util";
import { repositoryRoot } from "../local/service-process";
import { BENCH_POSTGRES_URL, BENCH_REDIS_URL, BenchStack } from "./bench-stack";
import { writeResults } from "./results-file";

const { values: args } = parseArgs({
  options: {
    entries: { type: "string", default: "100000" },
    postgres: { type: "boolean", default: false },
    out: { type: "string", default: path.join(repositoryRoot, "deploy/bench/results/latest-routing-lists.json") },
  },
});
const entries = Number(args.entries);

interface ListResult {
  list: "route" | "allow";
  entries: number;
  requestBytes: number;
  status: number;
  answerMs: number;
  answerBytes: number;
  /** The answer's error message, cut to its first 200 characters. */
  message: string;
  healthIdleP50Ms: number;
  healthDuringP50Ms: number;
  healthDuringMaxMs: number;
  healthProbesDuring: number;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? Number.NaN : sorted[Math.floor(sorted.length / 2)]!;
};

async function healthLatency(url: string): Promise<number> {
  const started = performance.now();
  const response = await fetch(`${url}/health`);
  await response.arrayBuffer();
  return performance.now() - started;
}

/** Probes /health one after another until `done` settles; the latencies. */
async function probeUntil(url: string, done: Promise<unknown>): Promise<number[]> {
  let finished = false;
  void done.finally(() => (finished = true));
  const latencies: number[] = [];
  while (!finished) latencies.push(await healthLatency(url));
  return latencies;
}

function body(list: "route" | "allow"): string {
  // Ids no catalogue has: every one is looked up and excluded, the most work a list can make.
  const ids = Array.from({ length: entries }, (_, index) => `vendor${index}/model-${index}`);
  return JSON.stringify({
    model: list === "route" ? "auto:balanced" : "auto",
    max_tokens: 16,
    messages: [{ role: "user", content: "Say hello." }],
    service: list === "route" ? { route: ids } : { allow: ids },
  });
}

async function measure(stack: BenchStack, list: "route" | "allow"): Promise<ListResult> {
  const url = stack.dataPlane.ready.url!;
  const idle: number[] = [];
  for (let probe = 0; probe < 20; probe++) idle.push(await healthLatency(url));
  const payload = body(list);
  const started = performance.now();
  const answer = fetch(`${url}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${stack.key}` },
    body: payload,
  }).then(async (response) => ({ status: response.status, text: await response.text(), ms: performance.now() - started }));
  const during = await probeUntil(url, answer);
  const { status, text, ms } = await answer;
  let message = "";
  try {
    message = String((JSON.parse(text) as { error?: { message?: unknown } }).error?.message ?? "").slice(0, 200);
  } catch {
    message = text.slice(0, 200);
  }
  return {
    list,
    entries,
    requestBytes: Buffer.byteLength(payload),
    status,
    answerMs: ms,
    answerBytes: Buffer.byteLength(text),
    message,
    healthIdleP50Ms: median(idle),
    healthDuringP50Ms: median(during),
    healthDuringMaxMs: Math.max(0, ...during),
    healthProbesDuring: during.length,
  };
}

const stack = new BenchStack({
  backend: args.postgres ? "postgresql" : "pglite",
  postgresUrl: BENCH_POSTGRES_URL,
  redisUrl: BENCH_REDIS_URL,
  gatewayCpus: undefined,
  loadCpus: undefined,
});
try {
  await stack.start();
  await stack.floor.stop(); // not measured here
  const results: ListResult[] = [];
  for (const list of ["route", "allow"] as const) {
    const result = await measure(stack, list);
    results.push(result);
    console.log(
      `service.${list.padEnd(5)} ${entries} entries (${(result.requestBytes / 1e6).toFixed(1)} MB): ${result.status} in ` +
        `${result.answerMs.toFixed(0)} ms, answer ${result.answerBytes} bytes; /health p50 ${result.healthDuringP50Ms.toFixed(1)} ms, ` +
        `max ${result.healthDuringMaxMs.toFixed(1)} ms over ${result.healthProbesDuring} probes (idle p50 ${result.healthIdleP50Ms.toFixed(1)} ms)`,
    );
    console.log(`  message: ${result.message}`);
  }
  writeResults(args.out, { entries, backend: stack.options.backend, results });
} finally {
  await stack.stop();
}
