// How the gateway's cost grows with the request's size (issue 22): chat completions whose user
// message is 1 KB, 100 KB and 1 MB (chatBodyWithPrompt in load.ts), json and stream, at
// concurrency 1 and 16, through the gateway (BenchStack's data plane, every feature on), the undici
// pass-through floor and the mock directly, in interleaved rounds (the order rotating, as
// gateway-bench.ts's measureCase). Per size: req/s, p50/p99 latency, the p50 overhead over the mock,
// CPU µs per request of the data plane against the floor's, and the data plane's extra µs per KB of
// prompt (its CPU per request above the floor's, against the smallest size's). The data plane's
// body limit is BODY_LIMIT_BYTES (10 MB by default), the mock's 64 MB: 1 MB passes both. The mock's request
// log is kept empty while a case runs (BenchStack.keepMockLogEmpty: it keeps bodies).
//
//   tsx deploy/bench/size-bench.ts --postgres
//   options: --sizes 1024,102400,1048576 --modes json,stream --concurrency 1,16 --duration <s per target and case>
//            --rounds 3 --warmup <s> --model <id> --out <file> --gateway-cpus 0 --load-cpus 1 --no-pin
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { repositoryRoot } from "../local/service-process";
import { BENCH_POSTGRES_URL, BENCH_REDIS_URL, BenchStack, upstreamHeaders } from "./bench-stack";
import { AUTOCANNON, chatBodyWithPrompt, drive, type Percentiles, percentiles, type Target } from "./load";
import { cpuSeconds, pin, rssBytes, tasksetAvailable } from "./process-stats";
import { writeResults } from "./results-file";

const { values: args } = parseArgs({
  options: {
    sizes: { type: "string", default: "1024,102400,1048576" },
    modes: { type: "string", default: "json,stream" },
    concurrency: { type: "string", default: "1,16" },
    duration: { type: "string", default: "6" },
    rounds: { type: "string", default: "3" },
    warmup: { type: "string", default: "2" },
    model: { type: "string", default: "gpt-4.1-mini" },
    postgres: { type: "boolean", default: false },
    out: { type: "string", default: path.join(repositoryRoot, "deploy/bench/results/latest-size.json") },
    "gateway-cpus": { type: "string", default: "0" },
    "load-cpus": { type: "string", default: "1" },
    "no-pin": { type: "boolean", default: false },
  },
});

const sizes = args.sizes.split(",").map(Number);
const modes = args.modes.split(",") as Mode[];
const concurrencies = args.concurrency.split(",").map(Number);
const seconds = Number(args.duration);
const rounds = Number(args.rounds);
const warmupSeconds = Number(args.warmup);
const pinned = !args["no-pin"] && tasksetAvailable() && os.cpus().length >= 2;

type TargetName = "mock" | "floor" | "gateway";
type Mode = "json" | "stream";
const TARGETS: TargetName[] = ["mock", "floor", "gateway"];

const stack = new BenchStack({
  backend: args.postgres ? "postgresql" : "pglite",
  postgresUrl: BENCH_POSTGRES_URL,
  redisUrl: BENCH_REDIS_URL,
  gatewayCpus: pinned ? args["gateway-cpus"] : undefined,
  loadCpus: pinned ? args["load-cpus"] : undefined,
});

interface SizeResult {
  promptBytes: number;
  bodyBytes: number;
  mode: Mode;
  concurrency: number;
  target: TargetName;
  requestsPerSecond: number;
  ok: number;
  failed: number;
  seconds: number;
  latencyMs: Percentiles;
  cpuSeconds: { dataPlane: number; controlPlane: number; floor: number; mock: number };
  /** CPU µs per successful request of the target's own process (gateway: the data plane; its control plane apart). */
  cpuMicrosPerRequest: number;
  controlPlaneMicrosPerRequest: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const fixed = (value: number, digits = 2) => (Number.isFinite(value) ? value.toFixed(digits) : "-");
const kb = (bytes: number) => (bytes >= 1024 * 1024 ? `${bytes / 1024 / 1024} MB` : `${bytes / 1024} KB`);

function targetOf(name: TargetName): Target {
  const base = name === "gateway" ? stack.dataPlane.ready.url : name === "floor" ? stack.floor.url : stack.mockUrl;
  return { url: `${base}/v1/chat/completions`, headers: name === "gateway" ? { authorization: `Bearer ${stack.key}` } : upstreamHeaders };
}

function processCpu() {
  return {
    dataPlane: cpuSeconds(stack.dataPlane.child.pid!),
    controlPlane: cpuSeconds(stack.controlPlane.child.pid!),
    floor: cpuSeconds(stack.floor.child.pid!),
    mock: cpuSeconds(stack.mock.child.pid!),
  };
}

interface Tally {
  ok: number;
  failed: number;
  wall: number;
  latencies: number[];
  used: SizeResult["cpuSeconds"];
}

/** One size/mode/concurrency for the three targets: a warm-up each, then `rounds` rotating rounds; samples and CPU pooled. */
async function measureSize(promptBytes: number, mode: Mode, concurrency: number): Promise<SizeResult[]> {
  const payload = chatBodyWithPrompt(args.model, mode, promptBytes);
  const stopResets = stack.keepMockLogEmpty();
  try {
    return await measureTargets(promptBytes, mode, concurrency, payload);
  } finally {
    stopResets();
  }
}

async function measureTargets(promptBytes: number, mode: Mode, concurrency: number, payload: string): Promise<SizeResult[]> {
  const tallies = new Map<TargetName, Tally>();
  for (const name of TARGETS) {
    const warm = await drive(targetOf(name), payload, concurrency, warmupSeconds);
    tallies.set(name, { ok: 0, failed: warm.failed, wall: 0, latencies: [], used: { dataPlane: 0, controlPlane: 0, floor: 0, mock: 0 } });
    await sleep(300);
  }
  for (let round = 0; round < rounds; round++) {
    for (const name of [...TARGETS.slice(round % 3), ...TARGETS.slice(0, round % 3)]) {
      const tally = tallies.get(name)!;
      const before = processCpu();
      const startedAt = performance.now();
      const load = await drive(targetOf(name), payload, concurrency, seconds / rounds);
      tally.wall += (performance.now() - startedAt) / 1000;
      const after = processCpu();
      for (const key of Object.keys(before) as (keyof typeof before)[]) tally.used[key] += after[key] - before[key];
      tally.ok += load.ok;
      tally.failed += load.failed;
      for (const latency of load.latencies) tally.latencies.push(latency);
      await sleep(300);
    }
  }
  return TARGETS.map((name) => {
    const { used, ok, wall, failed, latencies } = tallies.get(name)!;
    const own = name === "gateway" ? used.dataPlane : name === "floor" ? used.floor : used.mock;
    const result: SizeResult = {
      promptBytes,
      bodyBytes: Buffer.byteLength(payload),
      mode,
      concurrency,
      target: name,
      requestsPerSecond: ok / wall,
      ok,
      failed,
      seconds: wall,
      latencyMs: percentiles(latencies),
      cpuSeconds: used,
      cpuMicrosPerRequest: (1e6 * own) / ok,
      controlPlaneMicrosPerRequest: (1e6 * used.controlPlane) / ok,
    };
    console.error(
      `  ${kb(promptBytes)} ${mode} c=${concurrency} ${name}: ${fixed(result.requestsPerSecond, 0)} req/s, p50 ${fixed(result.latencyMs.p50, 3)} ms, ` +
        `p99 ${fixed(result.latencyMs.p99, 3)} ms, ${fixed(result.cpuMicrosPerRequest, 0)} CPU us/req${failed ? `, ${failed} FAILED` : ""}`,
    );
    return result;
  });
}

interface SizeRow {
  promptBytes: number;
  mode: Mode;
  concurrency: number;
  gatewayRps: number;
  floorRps: number;
  mockRps: number;
  gateway: Percentiles;
  floor: Percentiles;
  mock: Percentiles;
  gatewayOverheadP50: number;
  floorOverheadP50: number;
  dataPlaneMicros: number;
  floorMicros: number;
  controlPlaneMicros: number;
  /** Data-plane CPU µs per request above the floor's. */
  extraMicros: number;
  /** (extraMicros − the smallest size's extraMicros) per KB of prompt beyond the smallest size. */
  extraMicrosPerKb: number;
}

function summarize(results: SizeResult[]): SizeRow[] {
  const find = (size: number, mode: Mode, concurrency: number, target: TargetName) =>
    results.find((r) => r.promptBytes === size && r.mode === mode && r.concurrency === concurrency && r.target === target)!;
  const smallest = Math.min(...sizes);
  const rows: SizeRow[] = [];
  for (const mode of modes) {
    for (const concurrency of concurrencies) {
      const extraAt = (size: number) =>
        find(size, mode, concurrency, "gateway").cpuMicrosPerRequest - find(size, mode, concurrency, "floor").cpuMicrosPerRequest;
      for (const size of sizes) {
        const [gateway, floor, mock] = (["gateway", "floor", "mock"] as const).map((target) => find(size, mode, concurrency, target));
        rows.push({
          promptBytes: size,
          mode,
          concurrency,
          gatewayRps: gateway!.requestsPerSecond,
          floorRps: floor!.requestsPerSecond,
          mockRps: mock!.requestsPerSecond,
          gateway: gateway!.latencyMs,
          floor: floor!.latencyMs,
          mock: mock!.latencyMs,
          gatewayOverheadP50: gateway!.latencyMs.p50 - mock!.latencyMs.p50,
          floorOverheadP50: floor!.latencyMs.p50 - mock!.latencyMs.p50,
          dataPlaneMicros: gateway!.cpuMicrosPerRequest,
          floorMicros: floor!.cpuMicrosPerRequest,
          controlPlaneMicros: gateway!.controlPlaneMicrosPerRequest,
          extraMicros: extraAt(size),
          extraMicrosPerKb: size === smallest ? Number.NaN : (extraAt(size) - extraAt(smallest)) / ((size - smallest) / 1024),
        });
      }
    }
  }
  return rows;
}

function table(rows: SizeRow[]): string {
  const header = [
    "prompt",
    "mode",
    "conc",
    "req/s gw/floor/mock",
    "p50 ms gw/floor/mock",
    "p99 ms gw/floor/mock",
    "ovh p50 gw",
    "ovh p50 floor",
    "DP us/req",
    "floor us/req",
    "extra us/req",
    "extra us/KB",
  ];
  const lines = rows.map((row) => [
    kb(row.promptBytes),
    row.mode,
    String(row.concurrency),
    [row.gatewayRps, row.floorRps, row.mockRps].map((v) => fixed(v, 0)).join(" / "),
    [row.gateway.p50, row.floor.p50, row.mock.p50].map((v) => fixed(v, 2)).join(" / "),
    [row.gateway.p99, row.floor.p99, row.mock.p99].map((v) => fixed(v, 2)).join(" / "),
    fixed(row.gatewayOverheadP50, 3),
    fixed(row.floorOverheadP50, 3),
    fixed(row.dataPlaneMicros, 0),
    fixed(row.floorMicros, 0),
    fixed(row.extraMicros, 0),
    fixed(row.extraMicrosPerKb, 2),
  ]);
  const widths = header.map((title, column) => Math.max(title.length, ...lines.map((line) => line[column]!.length)));
  const line = (cells: string[]) => `| ${cells.map((cell, column) => cell.padEnd(widths[column]!)).join(" | ")} |`;
  return [line(header), line(widths.map((width) => "-".repeat(width))), ...lines.map(line)].join("\n");
}

async function main(): Promise<void> {
  if (pinned) pin(process.pid, args["load-cpus"]);
  console.error(
    `size benchmark: prompts ${sizes.map(kb).join("/")}, ${modes.join("/")}, concurrency ${concurrencies.join("/")}, ${seconds} s per target and case, ` +
      `${args.postgres ? "PostgreSQL + Redis" : "PGlite"}, ${pinned ? `gateway + floor on CPU ${args["gateway-cpus"]}, mock + load (${AUTOCANNON}) on CPU ${args["load-cpus"]}` : "not pinned"}`,
  );
  await stack.start();
  const loadAverageBefore = os.loadavg();
  const results: SizeResult[] = [];
  /** The mock's RSS after each case (its request log is kept empty: BenchStack.keepMockLogEmpty). */
  const mockRssMb: Record<string, number> = {};
  for (const mode of modes) {
    for (const concurrency of concurrencies) {
      for (const size of sizes) {
        results.push(...(await measureSize(size, mode, concurrency)));
        mockRssMb[`${kb(size)} ${mode} c=${concurrency}`] = Math.round(rssBytes(stack.mock.child.pid!) / 1024 / 1024);
      }
    }
  }
  const rows = summarize(results);
  console.log(`\n${table(rows)}\n`);
  console.log("ovh = p50 latency minus the mock's; DP us/req = data-plane CPU µs per request (control plane apart: in the JSON);");
  console.log("extra = DP us/req − floor us/req; extra us/KB = growth of extra per KB of prompt beyond the smallest size.");
  const failures = results.reduce((sum, result) => sum + result.failed, 0);
  if (failures) console.log(`WARNING: ${failures} requests failed; the figures above are not clean.`);
  const output = {
    date: new Date().toISOString(),
    command: `tsx deploy/bench/size-bench.ts ${process.argv.slice(2).join(" ")}`.trim(),
    machine: {
      cpus: os.cpus().length,
      cpuModel: os.cpus()[0]?.model,
      node: process.version,
      loadAverageBefore,
      loadAverageAfter: os.loadavg(),
    },
    options: {
      sizes,
      modes,
      concurrencies,
      seconds,
      rounds,
      warmupSeconds,
      model: args.model,
      backend: args.postgres ? "postgresql+redis" : "pglite",
      pinned,
    },
    failures,
    mockRssMb,
    rows,
    results,
  };
  writeResults(args.out, output);
}

try {
  await main();
} finally {
  await stack.stop();
}
