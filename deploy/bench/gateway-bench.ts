// The gateway's own benchmark: its speed against a bare proxy's in the same run. Starts the mock
// provider, a control plane, a data plane with every feature on (auth, the
// per-minute limit, exact billing, routing) and, in the same run, a bare undici
// pass-through (passthrough-floor.ts) as the floor; drives load with autocannon
// at fixed concurrencies for fixed durations through the gateway, the floor and
// the mock directly, non-streamed and streamed; prints a table, the targets'
// pass/fail, and writes the figures as JSON. docs/benchmark.md explains it.
//
//   tsx deploy/bench/gateway-bench.ts                 (10 s per case, PGlite)
//   tsx deploy/bench/gateway-bench.ts --quick         (2 s per case)
//   tsx deploy/bench/gateway-bench.ts --postgres      (PostgreSQL + Redis on the machine)
//   options: --duration <s per target and case> --rounds <n> --warmup <s> --concurrency 1,16,64 --slow-ms 50
//            --model <id> --out <file> --gateway-cpus 0 --load-cpus 1 --no-pin --cpu-prof <dir> --tsx
//            --tracing  (both planes export every request's spans over OTLP/HTTP to a sink in this process: trace-sink.ts)
// The data plane runs as production runs it (its bundle, plain node, DATA_PLANE_NODE_FLAGS); --tsx
// (implied by --cpu-prof, whose summary names packages by file) runs its TypeScript through tsx.
import { execFileSync } from "node:child_process";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { DATA_PLANE_NODE_FLAGS, repositoryRoot } from "../local/service-process";
import { BENCH_POSTGRES_URL, BENCH_REDIS_URL, BenchStack, CLOUD_MODELS, profileEnv, upstreamHeaders } from "./bench-stack";
import { startTraceSink } from "./trace-sink";
import {
  AUTOCANNON,
  chatBody,
  drive,
  type FirstTokenSamples,
  measureFirstToken,
  messagesBody,
  type Percentiles,
  percentiles,
  responsesBody,
  type Target,
} from "./load";
import {
  cpuBusySeconds,
  cpuSeconds,
  parseCpuList,
  peakRssBytes,
  pidsNamed,
  pin,
  rssBytes,
  RssSampler,
  tasksetAvailable,
} from "./process-stats";
import { writeResults } from "./results-file";

const { values: args } = parseArgs({
  options: {
    quick: { type: "boolean", default: false },
    duration: { type: "string" },
    concurrency: { type: "string", default: "1,16,64" },
    "slow-ms": { type: "string", default: "50" },
    model: { type: "string", default: "gpt-4.1-mini" },
    postgres: { type: "boolean", default: false },
    out: { type: "string", default: path.join(repositoryRoot, "deploy/bench/results/latest.json") },
    "gateway-cpus": { type: "string", default: "0" },
    "load-cpus": { type: "string", default: "1" },
    "no-pin": { type: "boolean", default: false },
    "cpu-prof": { type: "string" },
    tsx: { type: "boolean", default: false },
    rounds: { type: "string" },
    warmup: { type: "string" },
    tracing: { type: "boolean", default: false },
  },
});

const seconds = Number(args.duration ?? (args.quick ? 2 : 10));
const warmupSeconds = args.quick ? 0.5 : 2;
/** Before anything is measured, every target gets this long per mode at concurrency 16, so the JIT has settled. */
const globalWarmupSeconds = Number(args.warmup ?? (args.quick ? 3 : 15));
const firstTokenSeconds = Math.min(seconds, args.quick ? 1 : 5);
const rounds = Number(args.rounds ?? (args.quick ? 1 : 3));
const concurrencies = args.concurrency.split(",").map(Number);
const slowConcurrency = Math.max(...concurrencies);
const slowMs = Number(args["slow-ms"]);
const pinned = !args["no-pin"] && tasksetAvailable() && os.cpus().length >= 2;
const gatewayCpus = pinned ? args["gateway-cpus"] : undefined;
const loadCpus = pinned ? args["load-cpus"] : undefined;

type TargetName = "mock" | "floor" | "gateway";
type Mode = "json" | "stream";
/**
 * "baseline" and the slow upstream speak chat completions; "responses" and "messages" are the other client dialects, each to
 * a path that speaks it; "bedrock" and "vertex" are chat completions to a cloud path.
 */
type Scenario = "baseline" | `upstream-${number}ms` | Dialect | Cloud;
type Dialect = "responses" | "messages";
type Cloud = keyof typeof CLOUD_MODELS;
const CLOUDS = Object.keys(CLOUD_MODELS) as Cloud[];
const TARGETS: TargetName[] = ["mock", "floor", "gateway"];
const dataPlaneRuntime = args.tsx || args["cpu-prof"] ? "tsx" : "bundle";

interface CaseResult {
  scenario: Scenario;
  mode: Mode;
  concurrency: number;
  target: TargetName;
  /** Successful (2xx) responses per second of the measured runs. */
  requestsPerSecond: number;
  ok: number;
  failed: number;
  /** Wall-clock seconds of the measured runs (warm-ups excluded). */
  seconds: number;
  /** Latency to the complete response. */
  latencyMs: Percentiles;
  /** CPU seconds used during the measured run: the gateway's processes, the floor, the mock. */
  cpuSeconds: { dataPlane: number; controlPlane: number; floor: number; mock: number; postgresAndRedis?: number };
  /** CPU of the target's own processes (gateway: data plane + control plane) per second of the run. */
  cores: number;
  /** Successful requests per CPU second of the target's own processes (the mock itself: its CPU). */
  requestsPerCore: number;
  /** CPU microseconds per successful request, per process of the target. */
  cpuMicrosPerRequest: Record<string, number>;
  /**
   * CPU seconds per second that other processes of the machine used on the gateway's CPUs during the
   * run (their busy time minus the data plane, control plane and floor): noise; 0 on a quiet machine.
   */
  foreignCores?: number;
  /** Highest RSS sampled during the run: data plane (gateway), floor process (floor), mock (mock). */
  rssPeakBytes: number;
  firstToken?: { ok: number; failed: number; firstTokenMs: Percentiles; totalMs: Percentiles };
}

/** The Messages case's model: an Anthropic path (the mock's Anthropic persona), passed through. */
const MESSAGES_MODEL = "anthropic/claude-sonnet-4";

function body(mode: Mode, scenario: Scenario = "baseline"): string {
  if (scenario === "bedrock" || scenario === "vertex") return chatBody(CLOUD_MODELS[scenario], mode);
  if (scenario === "responses") return responsesBody(args.model, mode);
  if (scenario === "messages") return messagesBody(MESSAGES_MODEL, mode);
  return chatBody(args.model, mode);
}

/** --tracing: the planes' OTLP endpoint, a sink that only counts (docs/tracing.md, "Cost"). */
const traceSink = args.tracing ? await startTraceSink() : undefined;

const stack = new BenchStack({
  backend: args.postgres ? "postgresql" : "pglite",
  postgresUrl: BENCH_POSTGRES_URL,
  redisUrl: BENCH_REDIS_URL,
  gatewayCpus,
  loadCpus,
  dataPlaneEnv: { ...profileEnv(args["cpu-prof"], "data-plane"), ...traceSink?.env },
  controlPlaneEnv: { ...profileEnv(args["cpu-prof"], "control-plane"), ...traceSink?.env },
  dataPlaneRuntime,
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const mb = (bytes: number) => bytes / 1024 / 1024;
const fixed = (value: number, digits = 2) => (Number.isFinite(value) ? value.toFixed(digits) : "-");

let gatewayResponses = 0;
let gatewayCutAtEnd = 0;

const ROUTES: Record<Dialect | "chat", string> = { chat: "/v1/chat/completions", responses: "/v1/responses", messages: "/v1/messages" };

function targetOf(name: TargetName, scenario: Scenario = "baseline"): Target {
  const dialect = scenario === "responses" || scenario === "messages" ? scenario : "chat";
  const base = name === "gateway" ? stack.dataPlane.ready.url : name === "floor" ? stack.floor.url : stack.mockUrl;
  const key = name === "gateway" ? stack.key : undefined;
  // Anthropic's clients send their key in x-api-key, with the API version.
  const headers =
    dialect === "messages"
      ? { "x-api-key": key ?? upstreamHeaders.authorization.slice("Bearer ".length), "anthropic-version": "2023-06-01" }
      : key
        ? { authorization: `Bearer ${key}` }
        : upstreamHeaders;
  return { url: `${base}${ROUTES[dialect]}`, headers };
}

interface Tally {
  ok: number;
  failed: number;
  wall: number;
  latencies: number[];
  used: CaseResult["cpuSeconds"];
  busy: number;
  rssPeak: number;
  firstToken?: FirstTokenSamples;
}

/**
 * One scenario/mode/concurrency for all three targets: a warm-up each, then `rounds` rounds in
 * which every target gets seconds / rounds (the order rotating), so that a machine whose load
 * drifts disturbs the three alike. Samples and CPU time of the rounds are pooled.
 */
async function measureCase(scenario: Scenario, mode: Mode, concurrency: number): Promise<CaseResult[]> {
  const payload = body(mode, scenario);
  const pids = {
    dataPlane: stack.dataPlane.child.pid!,
    controlPlane: stack.controlPlane.child.pid!,
    floor: stack.floor.child.pid!,
    mock: stack.mock.child.pid!,
  };
  const external = args.postgres ? pidsNamed(["postgres", "redis-server"]) : [];
  const externalCpu = () => external.reduce((sum, pid) => sum + cpuSeconds(pid), 0);
  const gatewayCpuList = gatewayCpus === undefined ? undefined : parseCpuList(gatewayCpus);
  const withFirstToken = mode === "stream" && !scenario.startsWith("upstream-");
  const tallies = new Map<TargetName, Tally>();
  for (const name of TARGETS) {
    const warm = await drive(targetOf(name, scenario), payload, concurrency, warmupSeconds);
    if (name === "gateway") {
      gatewayResponses += warm.ok;
      gatewayCutAtEnd += concurrency;
    }
    tallies.set(name, {
      ok: 0,
      failed: warm.failed,
      wall: 0,
      latencies: [],
      used: { dataPlane: 0, controlPlane: 0, floor: 0, mock: 0, ...(args.postgres ? { postgresAndRedis: 0 } : {}) },
      busy: 0,
      rssPeak: 0,
    });
    await sleep(300);
  }
  for (let round = 0; round < rounds; round++) {
    for (const name of [...TARGETS.slice(round % 3), ...TARGETS.slice(0, round % 3)]) {
      const tally = tallies.get(name)!;
      const sampler = new RssSampler(name === "gateway" ? pids.dataPlane : name === "floor" ? pids.floor : pids.mock);
      const before = {
        dataPlane: cpuSeconds(pids.dataPlane),
        controlPlane: cpuSeconds(pids.controlPlane),
        floor: cpuSeconds(pids.floor),
        mock: cpuSeconds(pids.mock),
        external: externalCpu(),
      };
      const busyBefore = gatewayCpuList ? cpuBusySeconds(gatewayCpuList) : 0;
      const startedAt = performance.now();
      const load = await drive(targetOf(name, scenario), payload, concurrency, seconds / rounds);
      tally.wall += (performance.now() - startedAt) / 1000;
      tally.busy += gatewayCpuList ? cpuBusySeconds(gatewayCpuList) - busyBefore : 0;
      tally.used.dataPlane += cpuSeconds(pids.dataPlane) - before.dataPlane;
      tally.used.controlPlane += cpuSeconds(pids.controlPlane) - before.controlPlane;
      tally.used.floor += cpuSeconds(pids.floor) - before.floor;
      tally.used.mock += cpuSeconds(pids.mock) - before.mock;
      if (tally.used.postgresAndRedis !== undefined) tally.used.postgresAndRedis += externalCpu() - before.external;
      tally.rssPeak = Math.max(tally.rssPeak, sampler.stop());
      tally.ok += load.ok;
      tally.failed += load.failed;
      for (const latency of load.latencies) tally.latencies.push(latency);
      if (withFirstToken) {
        const first = await measureFirstToken(targetOf(name, scenario), payload, concurrency, firstTokenSeconds / rounds);
        tally.firstToken ??= { ok: 0, failed: 0, firstToken: [], total: [] };
        tally.firstToken.ok += first.ok;
        tally.firstToken.failed += first.failed;
        tally.firstToken.firstToken.push(...first.firstToken);
        tally.firstToken.total.push(...first.total);
      }
      if (name === "gateway") {
        gatewayResponses += load.ok;
        gatewayCutAtEnd += (withFirstToken ? 2 : 1) * concurrency;
      }
      await sleep(300);
    }
  }
  return TARGETS.map((name) => {
    const tally = tallies.get(name)!;
    if (name === "gateway") gatewayResponses += tally.firstToken?.ok ?? 0;
    const { used } = tally;
    const ownCpu = name === "gateway" ? used.dataPlane + used.controlPlane : name === "floor" ? used.floor : used.mock;
    const result: CaseResult = {
      scenario,
      mode,
      concurrency,
      target: name,
      requestsPerSecond: tally.ok / tally.wall,
      ok: tally.ok,
      failed: tally.failed,
      seconds: tally.wall,
      latencyMs: percentiles(tally.latencies),
      cpuSeconds: used,
      cores: ownCpu / tally.wall,
      requestsPerCore: tally.ok / ownCpu,
      cpuMicrosPerRequest:
        name === "gateway"
          ? { dataPlane: (1e6 * used.dataPlane) / tally.ok, controlPlane: (1e6 * used.controlPlane) / tally.ok }
          : { own: (1e6 * ownCpu) / tally.ok },
      ...(gatewayCpuList ? { foreignCores: Math.max(0, tally.busy - used.dataPlane - used.controlPlane - used.floor) / tally.wall } : {}),
      rssPeakBytes: tally.rssPeak,
      ...(tally.firstToken
        ? {
            firstToken: {
              ok: tally.firstToken.ok,
              failed: tally.firstToken.failed,
              firstTokenMs: percentiles(tally.firstToken.firstToken),
              totalMs: percentiles(tally.firstToken.total),
            },
          }
        : {}),
    };
    const failures = result.failed + (result.firstToken?.failed ?? 0);
    console.error(
      `  ${scenario} ${mode} c=${concurrency} ${name}: ${fixed(result.requestsPerSecond, 0)} req/s, p50 ${fixed(result.latencyMs.p50, 3)} ms, p99 ${fixed(result.latencyMs.p99, 3)} ms, ${fixed(result.cores)} cores` +
        (result.firstToken ? `, first token p50 ${fixed(result.firstToken.firstTokenMs.p50, 3)} ms` : "") +
        (failures ? `, ${failures} FAILED` : ""),
    );
    return result;
  });
}

function overhead(results: CaseResult[], of: CaseResult, pick: (latency: Percentiles) => number): number {
  const mock = results.find(
    (other) => other.scenario === of.scenario && other.mode === of.mode && other.concurrency === of.concurrency && other.target === "mock",
  )!;
  return pick(of.latencyMs) - pick(mock.latencyMs);
}

function table(results: CaseResult[]): string {
  const header = [
    "scenario",
    "mode",
    "conc",
    "target",
    "req/s",
    "p50 ms",
    "p99 ms",
    "ovh p50",
    "ovh p99",
    "cores",
    "req/s/core",
    "CPU us/req",
    "RSS MB",
    "TTFT p50",
    "TTFT ovh vs floor",
    "noise",
  ];
  const rows = results.map((result) => {
    const floor = results.find(
      (other) =>
        other.scenario === result.scenario &&
        other.mode === result.mode &&
        other.concurrency === result.concurrency &&
        other.target === "floor",
    );
    const ttftOverFloor =
      result.firstToken && floor?.firstToken && result.target === "gateway"
        ? result.firstToken.firstTokenMs.p50 - floor.firstToken.firstTokenMs.p50
        : Number.NaN;
    return [
      result.scenario,
      result.mode,
      String(result.concurrency),
      result.target,
      fixed(result.requestsPerSecond, 0),
      fixed(result.latencyMs.p50, 3),
      fixed(result.latencyMs.p99, 3),
      result.target === "mock"
        ? ""
        : fixed(
            overhead(results, result, (latency) => latency.p50),
            3,
          ),
      result.target === "mock"
        ? ""
        : fixed(
            overhead(results, result, (latency) => latency.p99),
            3,
          ),
      fixed(result.cores),
      fixed(result.requestsPerCore, 0),
      Object.values(result.cpuMicrosPerRequest)
        .map((micros) => fixed(micros, 0))
        .join("+"),
      fixed(mb(result.rssPeakBytes), 0),
      result.firstToken ? fixed(result.firstToken.firstTokenMs.p50, 3) : "",
      fixed(ttftOverFloor, 3).replace(/^-$/, ""),
      result.foreignCores === undefined ? "" : fixed(result.foreignCores),
    ];
  });
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
  const line = (cells: string[]) =>
    cells.map((cell, column) => (column < 4 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!))).join("  ");
  return [line(header), line(widths.map((width) => "-".repeat(width))), ...rows.map(line)].join("\n");
}

interface TargetCheck {
  target: string;
  measured: string;
  limit: string;
  pass: boolean;
}

function checkTargets(results: CaseResult[], dataPlanePeakRss: number): TargetCheck[] {
  const find = (scenario: Scenario, mode: Mode, concurrency: number, target: TargetName) =>
    results.find(
      (result) => result.scenario === scenario && result.mode === mode && result.concurrency === concurrency && result.target === target,
    )!;
  const checks: TargetCheck[] = [];
  const top = Math.max(...concurrencies);
  const low = Math.min(...concurrencies);
  for (const mode of ["json", "stream"] as const) {
    const gateway = find("baseline", mode, top, "gateway");
    const floor = find("baseline", mode, top, "floor");
    const ratio = gateway.requestsPerCore / floor.requestsPerCore;
    checks.push({
      target: `req/s per core, ${mode}, c=${top}: gateway >= 0.8 x floor`,
      measured: `${fixed(gateway.requestsPerCore, 0)} vs ${fixed(floor.requestsPerCore, 0)} (${fixed(ratio)}x)`,
      limit: ">= 0.80x",
      pass: ratio >= 0.8,
    });
  }
  for (const mode of ["json", "stream"] as const) {
    const gateway = overhead(results, find("baseline", mode, low, "gateway"), (latency) => latency.p50);
    const floor = overhead(results, find("baseline", mode, low, "floor"), (latency) => latency.p50);
    checks.push({
      target: `p50 overhead, ${mode}, c=${low}: gateway <= 1.2 x floor`,
      measured: `${fixed(gateway, 3)} ms vs ${fixed(floor, 3)} ms (${fixed(gateway / floor)}x)`,
      limit: "<= 1.20x",
      pass: gateway <= 1.2 * floor,
    });
  }
  const slow: Scenario = `upstream-${slowMs}ms`;
  for (const mode of ["json", "stream"] as const) {
    const gateway = find(slow, mode, slowConcurrency, "gateway");
    const floor = find(slow, mode, slowConcurrency, "floor");
    const ratio = gateway.latencyMs.p99 / floor.latencyMs.p99;
    const overheadRatio = overhead(results, gateway, (latency) => latency.p99) / overhead(results, floor, (latency) => latency.p99);
    checks.push({
      target: `p99 latency, ${mode}, c=${slowConcurrency}, ${slowMs} ms upstream: gateway <= 1.2 x floor`,
      measured: `${fixed(gateway.latencyMs.p99, 2)} ms vs ${fixed(floor.latencyMs.p99, 2)} ms (${fixed(ratio)}x; p99 overhead ratio ${fixed(overheadRatio)}x)`,
      limit: "<= 1.20x",
      pass: ratio <= 1.2,
    });
  }
  const gatewayStream = find("baseline", "stream", low, "gateway").firstToken!;
  const floorStream = find("baseline", "stream", low, "floor").firstToken!;
  const mockStream = find("baseline", "stream", low, "mock").firstToken!;
  const ttftOverhead = gatewayStream.firstTokenMs.p50 - floorStream.firstTokenMs.p50;
  checks.push({
    target: `time to first token overhead, c=${low}, p50: gateway - floor <= 0.5 ms`,
    measured: `${fixed(ttftOverhead, 3)} ms (gateway ${fixed(gatewayStream.firstTokenMs.p50, 3)}, floor ${fixed(floorStream.firstTokenMs.p50, 3)}, mock ${fixed(mockStream.firstTokenMs.p50, 3)} ms)`,
    limit: "<= 0.5 ms",
    pass: ttftOverhead <= 0.5,
  });
  checks.push({
    target: "data-plane RSS peak under load",
    measured: `${fixed(mb(dataPlanePeakRss), 1)} MB`,
    limit: "<= 150 MiB",
    pass: mb(dataPlanePeakRss) <= 150,
  });
  // The other client dialects cost what chat completions cost: their throughput against their own floor
  // is at least 0.9 x chat's against its floor, at the same mode and the top concurrency.
  for (const dialect of ["responses", "messages"] as const) {
    for (const mode of ["json", "stream"] as const) {
      const ofDialect = find(dialect, mode, top, "gateway").requestsPerCore / find(dialect, mode, top, "floor").requestsPerCore;
      const ofChat = find("baseline", mode, top, "gateway").requestsPerCore / find("baseline", mode, top, "floor").requestsPerCore;
      checks.push({
        target: `${dialect} ${mode}, c=${top}: req/s per core against its floor within 10% of chat's`,
        measured: `${fixed(ofDialect)}x vs chat ${fixed(ofChat)}x (${fixed(ofDialect / ofChat)})`,
        limit: ">= 0.90",
        pass: ofDialect >= 0.9 * ofChat,
      });
    }
  }
  // The clouds' paths cost what the OpenAI path costs: gateway throughput per core on the cloud path, over the
  // floor's (a bare pass-through to the mock's OpenAI endpoint: the clouds have no floor of their own), within
  // 10% of the same for the OpenAI path. The mock's own signature checks run on the load CPUs.
  for (const cloud of CLOUDS) {
    for (const mode of ["json", "stream"] as const) {
      const ofCloud = find(cloud, mode, top, "gateway").requestsPerCore / find(cloud, mode, top, "floor").requestsPerCore;
      const ofChat = find("baseline", mode, top, "gateway").requestsPerCore / find("baseline", mode, top, "floor").requestsPerCore;
      checks.push({
        target: `${cloud} ${mode}, c=${top}: req/s per core over the floor's within 10% of the OpenAI path's`,
        measured: `${fixed(ofCloud)}x vs OpenAI ${fixed(ofChat)}x (${fixed(ofCloud / ofChat)})`,
        limit: ">= 0.90",
        pass: ofCloud >= 0.9 * ofChat,
      });
    }
  }
  return checks;
}

interface Billing {
  activeHoldsAfterDrain: number;
  billedRequests: number;
  successfulResponses: number;
  cutAtRunEndsAtMost: number;
  balanceUsd: string;
}

async function billingCheck(): Promise<Billing> {
  // Every request ends in a settle or a release: wait for the active holds to drain.
  let active = -1;
  for (let attempt = 0; attempt < 50; attempt++) {
    active = (await stack.admin<{ data: unknown[] }>("GET", `/admin/projects/${stack.projectId}/holds?status=active&limit=10000`)).data
      .length;
    if (active === 0) break;
    await sleep(200);
  }
  const usage = await stack.admin<{ data: { requests?: number; cost?: { usd: string } }[] }>(
    "GET",
    `/admin/projects/${stack.projectId}/usage`,
  );
  const billedRequests = usage.data.reduce((sum, row) => sum + Number(row.requests ?? 0), 0);
  const balance = await stack.admin<{ balance: { usd: string } }>("GET", `/admin/projects/${stack.projectId}/balance`);
  return {
    activeHoldsAfterDrain: active,
    billedRequests,
    successfulResponses: gatewayResponses,
    cutAtRunEndsAtMost: gatewayCutAtEnd,
    balanceUsd: balance.balance.usd,
  };
}

/** What a sleep/wake cycle costs on the gateway's CPU (deploy/bench/wake-cost.mjs), to read the concurrency-1 figures by. */
function measureWakeCost(): { sleepWakeMicros: number; workMicros: number; workAfterWakeMicros: number } {
  const probe = [path.join(repositoryRoot, "deploy/bench/wake-cost.mjs")];
  const output =
    gatewayCpus === undefined
      ? execFileSync(process.execPath, probe)
      : execFileSync("taskset", ["-c", gatewayCpus, process.execPath, ...probe]);
  return JSON.parse(output.toString());
}

async function main(): Promise<void> {
  if (loadCpus !== undefined) pin(process.pid, loadCpus);
  console.error(
    `gateway benchmark: ${seconds} s per case, concurrency ${concurrencies.join("/")}, ${args.postgres ? "PostgreSQL + Redis" : "PGlite"}, model ${args.model}, ` +
      (pinned ? `gateway + floor on CPU ${gatewayCpus}, mock + load (${AUTOCANNON}) on CPU ${loadCpus}` : "not pinned") +
      `, data plane ${dataPlaneRuntime === "bundle" ? `bundled (node ${DATA_PLANE_NODE_FLAGS.join(" ")})` : "through tsx"}`,
  );
  await stack.start();
  if (args["cpu-prof"]) for (const service of [stack.dataPlane, stack.controlPlane]) service.child.kill("SIGUSR2");
  const dataPlanePid = stack.dataPlane.child.pid!;
  const dataPlaneIdleRss = rssBytes(dataPlanePid);
  const loadAverageBefore = os.loadavg();
  const results: CaseResult[] = [];
  console.error(`warming up: ${globalWarmupSeconds} s per target and mode at concurrency 16`);
  for (const mode of ["json", "stream"] as const) {
    for (const name of TARGETS) {
      const warm = await drive(targetOf(name), body(mode), 16, globalWarmupSeconds);
      if (name === "gateway") gatewayResponses += warm.ok;
      gatewayCutAtEnd += name === "gateway" ? 16 : 0;
    }
  }

  for (const mode of ["json", "stream"] as const) {
    for (const concurrency of concurrencies) results.push(...(await measureCase("baseline", mode, concurrency)));
  }
  // The other client dialects, at the lowest and highest concurrency: their overhead against the floor.
  for (const dialect of ["responses", "messages"] as const) {
    for (const mode of ["json", "stream"] as const) {
      for (const concurrency of new Set([Math.min(...concurrencies), slowConcurrency]))
        results.push(...(await measureCase(dialect, mode, concurrency)));
    }
  }
  // The clouds' paths, at the lowest and highest concurrency: their overhead against the floor.
  await stack.loadCloudModels();
  for (const cloud of CLOUDS) {
    for (const mode of ["json", "stream"] as const) {
      for (const concurrency of new Set([Math.min(...concurrencies), slowConcurrency]))
        results.push(...(await measureCase(cloud, mode, concurrency)));
    }
  }
  await stack.mockDefaultScript({ latencyMs: slowMs });
  for (const mode of ["json", "stream"] as const) results.push(...(await measureCase(`upstream-${slowMs}ms`, mode, slowConcurrency)));
  await stack.mockDefaultScript(undefined);

  const dataPlanePeakRss = Math.max(
    peakRssBytes(dataPlanePid),
    ...results.filter((result) => result.target === "gateway").map((result) => result.rssPeakBytes),
  );
  const billing = await billingCheck();
  const checks = checkTargets(results, dataPlanePeakRss);
  const failures = results.reduce((sum, result) => sum + result.failed + (result.firstToken?.failed ?? 0), 0);
  const wakeCost = measureWakeCost();

  console.log(`\n${table(results)}\n`);
  console.log(
    "ovh = latency minus the mock's own at the same scenario/mode/concurrency; cores = CPU seconds per second of the target's processes",
  );
  console.log("(gateway: data plane + control plane); req/s/core = successful requests per CPU second of those processes;");
  console.log("CPU us/req = CPU microseconds per request (gateway: data plane + control plane);");
  console.log("noise = CPU seconds per second other processes of the machine took on the gateway's CPUs during the run.\n");
  console.log("targets (ratios within this run):");
  for (const check of checks) console.log(`  ${check.pass ? "PASS" : "FAIL"}  ${check.target}: ${check.measured} [${check.limit}]`);
  console.log(
    `\ndata-plane RSS (${dataPlaneRuntime === "bundle" ? "bundle" : "tsx"}): ${fixed(mb(dataPlaneIdleRss), 1)} MB idle after start, ${fixed(mb(dataPlanePeakRss), 1)} MB peak`,
  );
  console.log(
    `billing: ${billing.billedRequests} requests billed for ${billing.successfulResponses} successful responses (+ at most ${billing.cutAtRunEndsAtMost} cut by the load tool at run ends), ` +
      `${billing.activeHoldsAfterDrain} holds still active, balance $${billing.balanceUsd} of $1000000.00`,
  );
  console.log(
    `machine: one sleep/wake cycle of a bare node process costs ${wakeCost.sleepWakeMicros} us of CPU on the gateway's CPU; ` +
      `${wakeCost.workMicros} us of request-like work costs ${wakeCost.workAfterWakeMicros} us right after a wake (deploy/bench/wake-cost.mjs)`,
  );
  if (traceSink) console.log(`tracing on: ${traceSink.stats().exports} OTLP exports, ${fixed(mb(traceSink.stats().bytes))} MB`);
  if (failures) console.log(`WARNING: ${failures} requests failed; the figures above are not clean.`);
  const noisy = results.filter((result) => (result.foreignCores ?? 0) > 0.1).length;
  if (noisy)
    console.log(
      `WARNING: in ${noisy} of ${results.length} runs other processes took more than 0.1 core of the gateway's CPUs; latency figures are disturbed.`,
    );

  const output = {
    date: new Date().toISOString(),
    command: `tsx deploy/bench/gateway-bench.ts ${process.argv.slice(2).join(" ")}`.trim(),
    machine: {
      cpus: os.cpus().length,
      cpuModel: os.cpus()[0]?.model,
      node: process.version,
      loadAverageBefore,
      loadAverageAfter: os.loadavg(),
      wakeCost,
    },
    options: {
      seconds,
      rounds,
      globalWarmupSeconds,
      warmupSeconds,
      firstTokenSeconds,
      concurrencies,
      slowMs,
      model: args.model,
      backend: args.postgres ? "postgresql+redis" : "pglite",
      dataPlaneRuntime,
      dataPlaneNodeFlags: dataPlaneRuntime === "bundle" ? DATA_PLANE_NODE_FLAGS : [],
      pinned,
      gatewayCpus,
      loadCpus,
      loadTool: AUTOCANNON,
      tracing: traceSink ? traceSink.stats() : false,
    },
    dataPlaneIdleRssBytes: dataPlaneIdleRss,
    dataPlanePeakRssBytes: dataPlanePeakRss,
    billing,
    failures,
    targets: checks,
    results,
  };
  writeResults(args.out, output);
}

try {
  await main();
} finally {
  await stack.stop();
  await traceSink?.close();
}
