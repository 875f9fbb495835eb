// What JSON costs the data plane per request (issue 22's first part), which a CPU profile cannot show (V8
// folds JSON.parse and JSON.stringify into their callers): the data plane runs with json-count.mjs preloaded,
// under load, json then stream; per request it prints the calls, characters and µs inside JSON.parse and
// JSON.stringify by call site. Then it times, in this process, what splicing `usage.cost` into a whole answer
// would save against parsing and re-serializing it (the mock's own answer, the one the benchmark relays).
//
//   tsx deploy/bench/json-cost.ts [--postgres] [--seconds 5] [--concurrency 16] [--out <file>]
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { repositoryRoot } from "../local/service-process";
import { BENCH_POSTGRES_URL, BENCH_REDIS_URL, BenchStack, upstreamHeaders } from "./bench-stack";
import { chatBody, drive, type Target } from "./load";
import { writeResults } from "./results-file";

const { values: args } = parseArgs({
  options: {
    postgres: { type: "boolean", default: false },
    seconds: { type: "string", default: "5" },
    concurrency: { type: "string", default: "16" },
    model: { type: "string", default: "gpt-4.1-mini" },
    out: { type: "string", default: path.join(repositoryRoot, "deploy/bench/results/json-cost.json") },
  },
});

interface Site {
  calls: number;
  chars: number;
  nanos: number;
}

const countDir = mkdtempSync(path.join(os.tmpdir(), "gateway-json-count-"));
const countFile = path.join(countDir, "counts.json");
const stack = new BenchStack({
  backend: args.postgres ? "postgresql" : "pglite",
  postgresUrl: BENCH_POSTGRES_URL,
  redisUrl: BENCH_REDIS_URL,
  gatewayCpus: undefined,
  loadCpus: undefined,
  dataPlaneRuntime: "tsx", // call sites named by their source files
  dataPlaneEnv: {
    NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ""} --import ${path.join(repositoryRoot, "deploy/bench/json-count.mjs")}`.trim(),
    BENCH_JSON_COUNT_FILE: countFile,
  },
});
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** What the data plane counted since the last snapshot (SIGUSR2 writes it and starts afresh). */
async function snapshot(): Promise<Record<string, Site>> {
  rmSync(countFile, { force: true });
  process.kill(stack.dataPlane.child.pid!, "SIGUSR2");
  for (let waited = 0; !existsSync(countFile) && waited < 50; waited++) await sleep(100);
  await sleep(100);
  return JSON.parse(readFileSync(countFile, "utf8")) as Record<string, Site>;
}

/** Nanoseconds per call of `work`, the best of five runs of `iterations`. */
function time(work: () => unknown, iterations = 200_000): number {
  let best = Number.POSITIVE_INFINITY;
  for (let run = 0; run < 5; run++) {
    const started = process.hrtime.bigint();
    for (let index = 0; index < iterations; index++) work();
    best = Math.min(best, Number(process.hrtime.bigint() - started) / iterations);
  }
  return best;
}

/** The splice alternative: `"cost":…` put into the answer's usage object without parsing the rest. */
function splice(text: string, cost: string): string {
  const at = text.lastIndexOf('"usage":{');
  const close = text.indexOf("}", at);
  return `${text.slice(0, close)},"cost":${cost}${text.slice(close)}`;
}

try {
  await stack.start();
  const gateway: Target = { url: `${stack.dataPlane.ready.url}/v1/chat/completions`, headers: { authorization: `Bearer ${stack.key}` } };
  const concurrency = Number(args.concurrency);
  const perMode: Record<string, { requests: number; sites: Record<string, Site & { perRequest: number; microsPerRequest: number }> }> = {};
  for (const mode of ["json", "stream"] as const) {
    await drive(gateway, chatBody(args.model, mode), 16, 10);
    await snapshot();
    const run = await drive(gateway, chatBody(args.model, mode), concurrency, Number(args.seconds));
    await sleep(300); // the completions of the last requests
    const sites = await snapshot();
    const requests = run.ok + run.failed;
    const rows = Object.entries(sites)
      .map(
        ([site, counted]) =>
          [site, { ...counted, perRequest: counted.calls / requests, microsPerRequest: counted.nanos / 1000 / requests }] as const,
      )
      .sort((a, b) => b[1].microsPerRequest - a[1].microsPerRequest);
    perMode[mode] = { requests, sites: Object.fromEntries(rows) };
    const total = rows.reduce((sum, [, row]) => sum + row.microsPerRequest, 0);
    console.log(`\n${mode}: ${requests} requests; JSON inside the data plane: ${total.toFixed(2)} µs per request`);
    for (const [site, row] of rows.slice(0, 12))
      console.log(
        `  ${row.microsPerRequest.toFixed(2).padStart(6)} µs  ${row.perRequest.toFixed(2).padStart(5)} calls  ${Math.round(
          row.chars / row.calls,
        )
          .toString()
          .padStart(6)} chars/call  ${site}`,
      );
  }

  // The mock's whole answer, as the data plane reads it, and the two ways to add usage.cost to it.
  const answer = await (
    await fetch(`${stack.mockUrl}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", ...upstreamHeaders },
      body: chatBody(args.model, "json"),
    })
  ).text();
  const reserialize = time(() => {
    const parsed = JSON.parse(answer) as { usage: Record<string, unknown> };
    parsed.usage.cost = 0.000123;
    return JSON.stringify(parsed);
  });
  const spliced = time(() => splice(answer, "0.000123"));
  console.log(
    `\nwhole answer of ${answer.length} chars: parse + add cost + stringify ${(reserialize / 1000).toFixed(2)} µs; splice ${(spliced / 1000).toFixed(2)} µs`,
  );
  const output = {
    date: new Date().toISOString(),
    command: `tsx deploy/bench/json-cost.ts ${process.argv.slice(2).join(" ")}`.trim(),
    node: process.version,
    perMode,
    wholeAnswer: { chars: answer.length, reserializeMicros: reserialize / 1000, spliceMicros: spliced / 1000 },
  };
  writeResults(args.out, output);
} finally {
  await stack.stop();
  rmSync(countDir, { recursive: true, force: true });
}
