// A soak: the gateway (every feature on, PostgreSQL + Redis) under moderate load for an hour, to see
// whether memory or latency drift. The mock answers after --upstream-ms; the load alternates json and
// streamed chat completions in --slice-s slices at --concurrency. Every slice records latency, the data
// plane's RSS and both planes' CPU per request; the mock alone is measured at the start and the end, so
// that the gateway's overhead can be read apart from the machine's. Results are written after every
// slice, so an interrupted soak keeps what it measured. docs/benchmark.md ("Soak") has the figures.
//
//   tsx deploy/bench/soak-bench.ts                     (60 minutes, concurrency 16, 20 ms upstream)
//   options: --minutes 60 --concurrency 16 --upstream-ms 20 --slice-s 30 --out <file> --no-pin
import { mkdirSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { repositoryRoot } from "../local/service-process";
import { BENCH_POSTGRES_URL, BENCH_REDIS_URL, BenchStack } from "./bench-stack";
import { chatBody, drive, type Percentiles, percentiles, type Target } from "./load";
import { cpuBusySeconds, cpuSeconds, parseCpuList, pin, rssBytes, tasksetAvailable } from "./process-stats";

const { values: args } = parseArgs({
  options: {
    minutes: { type: "string", default: "60" },
    concurrency: { type: "string", default: "16" },
    "upstream-ms": { type: "string", default: "20" },
    "slice-s": { type: "string", default: "30" },
    model: { type: "string", default: "gpt-4.1-mini" },
    out: { type: "string", default: path.join(repositoryRoot, "deploy/bench/results/soak-latest.json") },
    "no-pin": { type: "boolean", default: false },
  },
});

const minutes = Number(args.minutes);
const concurrency = Number(args.concurrency);
const upstreamMs = Number(args["upstream-ms"]);
const sliceSeconds = Number(args["slice-s"]);
const pinned = !args["no-pin"] && tasksetAvailable() && os.cpus().length >= 2;
const gatewayCpus = pinned ? "0" : undefined;
type Mode = "json" | "stream";

interface Slice {
  /** Seconds since the soak's start (after warm-up) at the slice's end. */
  at: number;
  mode: Mode;
  requestsPerSecond: number;
  failed: number;
  latencyMs: Percentiles;
  dataPlaneRssBytes: number;
  cpuMicrosPerRequest: { dataPlane: number; controlPlane: number };
  /** CPU seconds per second that other processes took on the gateway's CPU (noise). */
  foreignCores?: number;
}

const stack = new BenchStack({
  backend: "postgresql",
  postgresUrl: BENCH_POSTGRES_URL,
  redisUrl: BENCH_REDIS_URL,
  gatewayCpus,
  loadCpus: pinned ? "1" : undefined,
});

const fixed = (value: number, digits = 2) => (Number.isFinite(value) ? value.toFixed(digits) : "-");
const mb = (bytes: number) => bytes / 1024 / 1024;

function gatewayTarget(): Target {
  return { url: `${stack.dataPlane.ready.url}/v1/chat/completions`, headers: { authorization: `Bearer ${stack.key}` } };
}

async function measureSlice(mode: Mode, startedAt: number): Promise<Slice> {
  const dataPlane = stack.dataPlane.child.pid!;
  const controlPlane = stack.controlPlane.child.pid!;
  const cpus = gatewayCpus === undefined ? undefined : parseCpuList(gatewayCpus);
  const before = { dataPlane: cpuSeconds(dataPlane), controlPlane: cpuSeconds(controlPlane), busy: cpus ? cpuBusySeconds(cpus) : 0 };
  const sliceStart = performance.now();
  const load = await drive(gatewayTarget(), chatBody(args.model, mode), concurrency, sliceSeconds);
  const wall = (performance.now() - sliceStart) / 1000;
  const used = { dataPlane: cpuSeconds(dataPlane) - before.dataPlane, controlPlane: cpuSeconds(controlPlane) - before.controlPlane };
  const foreign = cpus ? Math.max(0, cpuBusySeconds(cpus) - before.busy - used.dataPlane - used.controlPlane) / wall : undefined;
  return {
    at: Math.round((performance.now() - startedAt) / 1000),
    mode,
    requestsPerSecond: load.ok / wall,
    failed: load.failed,
    latencyMs: percentiles(load.latencies),
    dataPlaneRssBytes: rssBytes(dataPlane),
    cpuMicrosPerRequest: { dataPlane: (1e6 * used.dataPlane) / load.ok, controlPlane: (1e6 * used.controlPlane) / load.ok },
    ...(foreign === undefined ? {} : { foreignCores: foreign }),
  };
}

/** The mock alone at the soak's load, json and stream: the latency the gateway's overhead is read against. */
async function mockAlone(): Promise<Record<Mode, Percentiles>> {
  const target: Target = { url: `${stack.mockUrl}/v1/chat/completions`, headers: { authorization: "Bearer bench-upstream-key" } };
  const result = {} as Record<Mode, Percentiles>;
  for (const mode of ["json", "stream"] as const)
    result[mode] = percentiles((await drive(target, chatBody(args.model, mode), concurrency, 10)).latencies);
  return result;
}

/** Means of a window's slices of one mode. */
function summarize(slices: Slice[], mode: Mode) {
  const ofMode = slices.filter((slice) => slice.mode === mode);
  const mean = (pick: (slice: Slice) => number) => ofMode.reduce((sum, slice) => sum + pick(slice), 0) / ofMode.length;
  return {
    slices: ofMode.length,
    requestsPerSecond: mean((slice) => slice.requestsPerSecond),
    p50Ms: mean((slice) => slice.latencyMs.p50),
    p99Ms: mean((slice) => slice.latencyMs.p99),
    dataPlaneMicrosPerRequest: mean((slice) => slice.cpuMicrosPerRequest.dataPlane),
    controlPlaneMicrosPerRequest: mean((slice) => slice.cpuMicrosPerRequest.controlPlane),
    rssMiB: mean((slice) => mb(slice.dataPlaneRssBytes)),
    foreignCores: mean((slice) => slice.foreignCores ?? 0),
  };
}

async function main(): Promise<void> {
  if (pinned) pin(process.pid, "1");
  await stack.start();
  await stack.mockDefaultScript({ latencyMs: upstreamMs });
  const idleRss = rssBytes(stack.dataPlane.child.pid!);
  console.error(
    `soak: ${minutes} min, concurrency ${concurrency}, ${upstreamMs} ms upstream, ${sliceSeconds} s slices alternating json/stream, ` +
      `PostgreSQL + Redis, ${pinned ? "gateway on CPU 0, mock + load on CPU 1" : "not pinned"}`,
  );
  for (const mode of ["json", "stream"] as const) await drive(gatewayTarget(), chatBody(args.model, mode), concurrency, 15);
  const mockAtStart = await mockAlone();
  const slices: Slice[] = [];
  const startedAt = performance.now();
  const window = Math.max(2, Math.round((5 * 60) / sliceSeconds));
  const save = (extra: Record<string, unknown> = {}) => {
    const output = {
      date: new Date().toISOString(),
      command: `tsx deploy/bench/soak-bench.ts ${process.argv.slice(2).join(" ")}`.trim(),
      machine: { cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model, node: process.version, loadAverage: os.loadavg() },
      options: { minutes, concurrency, upstreamMs, sliceSeconds, model: args.model, pinned },
      dataPlaneIdleRssBytes: idleRss,
      mockAtStart,
      ...extra,
      slices,
    };
    mkdirSync(path.dirname(args.out), { recursive: true });
    writeFileSync(args.out, `${JSON.stringify(output, null, 2)}\n`);
  };
  for (let index = 0; performance.now() - startedAt < minutes * 60_000; index++) {
    const slice = await measureSlice(index % 2 === 0 ? "json" : "stream", startedAt);
    slices.push(slice);
    console.error(
      `  ${fixed(slice.at / 60, 1)} min ${slice.mode}: ${fixed(slice.requestsPerSecond, 0)} req/s, p50 ${fixed(slice.latencyMs.p50, 2)} ms, ` +
        `p99 ${fixed(slice.latencyMs.p99, 2)} ms, RSS ${fixed(mb(slice.dataPlaneRssBytes), 1)} MB, ` +
        `CPU ${fixed(slice.cpuMicrosPerRequest.dataPlane, 0)}+${fixed(slice.cpuMicrosPerRequest.controlPlane, 0)} us/req` +
        (slice.failed ? `, ${slice.failed} FAILED` : "") +
        (slice.foreignCores === undefined ? "" : `, noise ${fixed(slice.foreignCores)}`),
    );
    save();
  }
  const mockAtEnd = await mockAlone();
  const start = slices.slice(0, window);
  const end = slices.slice(-window);
  const summary = {
    start: { json: summarize(start, "json"), stream: summarize(start, "stream") },
    end: { json: summarize(end, "json"), stream: summarize(end, "stream") },
    failed: slices.reduce((sum, slice) => sum + slice.failed, 0),
    dataPlaneRssMaxBytes: Math.max(...slices.map((slice) => slice.dataPlaneRssBytes)),
  };
  save({ mockAtEnd, summary });
  for (const mode of ["json", "stream"] as const) {
    for (const [label, window, mock] of [
      ["start", summary.start[mode], mockAtStart[mode]],
      ["end", summary.end[mode], mockAtEnd[mode]],
    ] as const) {
      console.log(
        `${mode} ${label}: ${fixed(window.requestsPerSecond, 0)} req/s, p50 ${fixed(window.p50Ms, 2)} ms (mock alone ${fixed(mock.p50, 2)}), ` +
          `p99 ${fixed(window.p99Ms, 2)} ms (mock alone ${fixed(mock.p99, 2)}), RSS ${fixed(window.rssMiB, 1)} MB, ` +
          `CPU ${fixed(window.dataPlaneMicrosPerRequest, 0)}+${fixed(window.controlPlaneMicrosPerRequest, 0)} us/req, noise ${fixed(window.foreignCores)}`,
      );
    }
  }
  console.log(
    `data-plane RSS: ${fixed(mb(idleRss), 1)} MB idle, ${fixed(mb(summary.dataPlaneRssMaxBytes), 1)} MB highest sampled; ${summary.failed} requests failed`,
  );
  console.log(`results: ${path.relative(process.cwd(), args.out)}`);
}

try {
  await main();
} finally {
  await stack.stop();
}
