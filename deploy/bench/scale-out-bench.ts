// Scale-out (issue 22): 1, 2 and 4 data planes against one control plane on PostgreSQL + Redis.
// One stack (bench-stack.ts: mock provider, control plane, every data-plane feature on); its own data
// plane and the floor are stopped and the largest count of data planes is started beside it (each its
// own DATA_PLANE_REPLICA_ID, the production bundle), so that every count runs on the same processes.
// A window drives the first N of them with autocannon from this process at a fixed total concurrency
// split across them (64: 64, 32+32, 16+16+16+16), json and stream. Every round measures each N once per
// mode, the order of N rotating from round to round, so that drift touches every N alike; each window
// has a short unmeasured lead-in (a plane that sat idle first takes a new budget lease).
//
// Per window, from /proc: CPU seconds of each data plane (the driven ones and the idle ones apart), the
// control plane, PostgreSQL (every postgres process, and apart the backends of this run's database),
// Redis, the mock and this process (the load), and the busy time of the machine's CPUs (what is left
// is other work). From the control plane's /metrics: gRPC calls served by method, draws, and the
// money batches written. Reported per N: req/s, req/s per core of the gateway (data planes + control
// plane), CPU µs per request of each part, calls per request; and the extrapolation: the request rate
// at which one control-plane core (Node is single-threaded) saturates when every data plane runs at its
// own measured req/s per core, how many data planes that is, and what PostgreSQL needs then.
// docs/benchmark.md ("How cost grows (issue 22)") explains it.
//
// Pinned as gateway-bench.ts pins (2 CPUs and taskset): every gateway process on CPU 0, the mock and the
// load on CPU 1; PostgreSQL and Redis are not pinned. Total throughput is capped by CPU 0, so the figures
// to read are CPU per request.
//
//   tsx deploy/bench/scale-out-bench.ts --postgres
//   options: --planes 1,2,4 --modes json,stream --concurrency 64 --rounds 6 --seconds 5 --warmup 15
//            --model <id> --no-pin --out <file>
import { mkdirSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import type { ServiceProcess } from "../local/service-process";
import { repositoryRoot } from "../local/service-process";
import { BENCH_POSTGRES_URL, BENCH_REDIS_URL, BenchStack } from "./bench-stack";
import { chatBody, drive, type LoadSamples, percentiles, type Target } from "./load";
import { commandLine, cpuBusySeconds, cpuSeconds, pidsNamed, pin, tasksetAvailable } from "./process-stats";

const { values: args } = parseArgs({
  options: {
    postgres: { type: "boolean", default: false },
    planes: { type: "string", default: "1,2,4" },
    modes: { type: "string", default: "json,stream" },
    concurrency: { type: "string", default: "64" },
    rounds: { type: "string", default: "6" },
    seconds: { type: "string", default: "5" },
    warmup: { type: "string", default: "15" },
    model: { type: "string", default: "gpt-4.1-mini" },
    "no-pin": { type: "boolean", default: false },
    out: { type: "string", default: path.join(repositoryRoot, "deploy/bench/results/scale-out-latest.json") },
  },
});
if (!args.postgres)
  throw new Error("scale-out-bench runs against PostgreSQL + Redis only: pass --postgres (BENCH_POSTGRES_URL, BENCH_REDIS_URL)");

type Mode = "json" | "stream";
const planeCounts = args.planes.split(",").map(Number);
const modes = args.modes.split(",").map((mode) => {
  if (mode !== "json" && mode !== "stream") throw new Error(`a mode is json or stream, not ${mode}`);
  return mode as Mode;
});
const concurrency = Number(args.concurrency);
const rounds = Number(args.rounds);
const seconds = Number(args.seconds);
const leadInSeconds = 1;
const maxPlanes = Math.max(...planeCounts);
const pinned = !args["no-pin"] && tasksetAvailable() && os.cpus().length >= 2;
const allCpus = os.cpus().map((_, index) => index);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** `total` connections split across `parts` (64 over 3: 22, 21, 21). */
const split = (total: number, parts: number) =>
  Array.from({ length: parts }, (_, index) => Math.floor(total / parts) + (index < total % parts ? 1 : 0));

/** The control plane's counters this benchmark reads (docs/metrics.md). */
interface ControlPlaneCounters {
  /** gRPC calls served, by method (gateway_grpc_server_seconds_count). */
  grpc: Record<string, number>;
  /** Money calls answered, by event (gateway_holds_total: draw, lease, release, ...). */
  holds: Record<string, number>;
  batches: number;
  operations: number;
}

async function controlPlaneCounters(metricsUrl: string): Promise<ControlPlaneCounters> {
  const text = await (await fetch(`${metricsUrl}/metrics`)).text();
  const counters: ControlPlaneCounters = { grpc: {}, holds: {}, batches: 0, operations: 0 };
  for (const line of text.split("\n")) {
    const grpc = /^gateway_grpc_server_seconds_count\{([^}]*)\} (\S+)$/.exec(line);
    if (grpc) {
      const method = /method="([^"]*)"/.exec(grpc[1]!)?.[1] ?? "?";
      counters.grpc[method] = (counters.grpc[method] ?? 0) + Number(grpc[2]);
      continue;
    }
    const holds = /^gateway_holds_total\{([^}]*)\} (\S+)$/.exec(line);
    if (holds) {
      const event = /event="([^"]*)"/.exec(holds[1]!)?.[1] ?? "?";
      counters.holds[event] = (counters.holds[event] ?? 0) + Number(holds[2]);
      continue;
    }
    const batches = /^gateway_money_batches_total (\S+)$/.exec(line);
    if (batches) counters.batches = Number(batches[1]);
    const operations = /^gateway_money_operations_total (\S+)$/.exec(line);
    if (operations) counters.operations = Number(operations[1]);
  }
  return counters;
}

function counterDelta(after: Record<string, number>, before: Record<string, number>): Record<string, number> {
  return Object.fromEntries(
    Object.keys(after)
      .map((key) => [key, after[key]! - (before[key] ?? 0)])
      .filter(([, value]) => value !== 0),
  );
}

/** CPU seconds of a changing set of processes (PostgreSQL's backends come and go): per pid, what it used in between. */
class PidGroupCpu {
  private readonly before = new Map<number, number>();
  constructor(private readonly list: () => number[]) {
    for (const pid of list()) this.before.set(pid, cpuSeconds(pid));
  }
  /** A pid gone meanwhile counts nothing (its last CPU is lost); one started meanwhile counts all it used. */
  used(): number {
    let sum = 0;
    for (const pid of new Set([...this.before.keys(), ...this.list()])) {
      const now = cpuSeconds(pid);
      if (now > 0) sum += Math.max(0, now - (this.before.get(pid) ?? 0));
    }
    return sum;
  }
}

interface Window {
  planes: number;
  mode: Mode;
  round: number;
  ok: number;
  failed: number;
  wall: number;
  p50Ms: number;
  /** CPU seconds during the window. */
  cpu: {
    /** Each driven data plane. */
    dataPlanes: number[];
    /** The data planes not driven in this window, together. */
    idlePlanes: number;
    controlPlane: number;
    /** Every postgres process of the machine. */
    postgres: number;
    /** Of those, the backends connected to this run's database (the control plane's pool). */
    postgresOwnBackends: number;
    redis: number;
    mock: number;
    load: number;
    /** Busy time of all CPUs minus every process above: other work on the machine. */
    other: number;
  };
  controlPlane: Omit<ControlPlaneCounters, "grpc" | "holds"> & { grpc: Record<string, number>; holds: Record<string, number> };
}

const stack = new BenchStack({
  backend: "postgresql",
  postgresUrl: BENCH_POSTGRES_URL,
  redisUrl: BENCH_REDIS_URL,
  gatewayCpus: pinned ? "0" : undefined,
  loadCpus: pinned ? "1" : undefined,
});
const planes: ServiceProcess[] = [];

async function measure(active: ServiceProcess[], mode: Mode, round: number, leadIn: number, windowSeconds: number): Promise<Window> {
  const headers = { authorization: `Bearer ${stack.key}` };
  const targets: Target[] = active.map((plane) => ({ url: `${plane.ready.url}/v1/chat/completions`, headers }));
  const connections = split(concurrency, Math.max(1, active.length));
  const payload = chatBody(args.model, mode);
  const driveAll = (duration: number): Promise<LoadSamples[]> =>
    Promise.all(targets.map((target, index) => drive(target, payload, connections[index]!, duration)));
  if (leadIn > 0 && active.length > 0) await driveAll(leadIn);

  const idle = planes.filter((plane) => !active.includes(plane));
  const ownDatabase = stack.database!;
  const postgresAll = new PidGroupCpu(() => pidsNamed(["postgres"]));
  const postgresOwn = new PidGroupCpu(() => pidsNamed(["postgres"]).filter((pid) => commandLine(pid).includes(ownDatabase)));
  const redis = new PidGroupCpu(() => pidsNamed(["redis-server"]));
  const countersBefore = await controlPlaneCounters(stack.controlPlane.ready.metrics!);
  const cpu = (pid: number) => cpuSeconds(pid);
  const before = {
    active: active.map((plane) => cpu(plane.child.pid!)),
    idle: idle.reduce((sum, plane) => sum + cpu(plane.child.pid!), 0),
    controlPlane: cpu(stack.controlPlane.child.pid!),
    mock: cpu(stack.mock.child.pid!),
    load: cpu(process.pid),
    busy: cpuBusySeconds(allCpus),
  };
  const startedAt = performance.now();
  let samples: LoadSamples[] = [];
  if (active.length > 0) samples = await driveAll(windowSeconds);
  else await sleep(windowSeconds * 1000);
  const wall = (performance.now() - startedAt) / 1000;
  const used = {
    dataPlanes: active.map((plane, index) => cpu(plane.child.pid!) - before.active[index]!),
    idlePlanes: idle.reduce((sum, plane) => sum + cpu(plane.child.pid!), 0) - before.idle,
    controlPlane: cpu(stack.controlPlane.child.pid!) - before.controlPlane,
    postgres: postgresAll.used(),
    postgresOwnBackends: postgresOwn.used(),
    redis: redis.used(),
    mock: cpu(stack.mock.child.pid!) - before.mock,
    load: cpu(process.pid) - before.load,
    other: 0,
  };
  const busy = cpuBusySeconds(allCpus) - before.busy;
  const ours =
    used.dataPlanes.reduce((sum, value) => sum + value, 0) +
    used.idlePlanes +
    used.controlPlane +
    used.postgres +
    used.redis +
    used.mock +
    used.load;
  used.other = Math.max(0, busy - ours);
  const countersAfter = await controlPlaneCounters(stack.controlPlane.ready.metrics!);
  return {
    planes: active.length,
    mode,
    round,
    ok: samples.reduce((sum, load) => sum + load.ok, 0),
    failed: samples.reduce((sum, load) => sum + load.failed, 0),
    wall,
    p50Ms: percentiles(samples.flatMap((load) => load.latencies)).p50,
    cpu: used,
    controlPlane: {
      grpc: counterDelta(countersAfter.grpc, countersBefore.grpc),
      holds: counterDelta(countersAfter.holds, countersBefore.holds),
      batches: countersAfter.batches - countersBefore.batches,
      operations: countersAfter.operations - countersBefore.operations,
    },
  };
}

/** Least squares y = a·x1 + b·x2 (no intercept). */
function fit2(rows: { x1: number; x2: number; y: number }[]): { a: number; b: number } {
  let s11 = 0;
  let s12 = 0;
  let s22 = 0;
  let s1y = 0;
  let s2y = 0;
  for (const { x1, x2, y } of rows) {
    s11 += x1 * x1;
    s12 += x1 * x2;
    s22 += x2 * x2;
    s1y += x1 * y;
    s2y += x2 * y;
  }
  const det = s11 * s22 - s12 * s12;
  return { a: (s1y * s22 - s2y * s12) / det, b: (s2y * s11 - s1y * s12) / det };
}

const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);

function summarize(windows: Window[]) {
  const ok = sum(windows.map((w) => w.ok));
  const wall = sum(windows.map((w) => w.wall));
  const total = (pick: (w: Window) => number) => sum(windows.map(pick));
  const dataPlanes = total((w) => sum(w.cpu.dataPlanes));
  const controlPlane = total((w) => w.cpu.controlPlane);
  const micros = (cpuSecondsUsed: number) => (cpuSecondsUsed / ok) * 1e6;
  const grpc: Record<string, number> = {};
  const holds: Record<string, number> = {};
  for (const w of windows) {
    for (const [method, count] of Object.entries(w.controlPlane.grpc)) grpc[method] = (grpc[method] ?? 0) + count;
    for (const [event, count] of Object.entries(w.controlPlane.holds)) holds[event] = (holds[event] ?? 0) + count;
  }
  const grpcCalls = sum(Object.values(grpc));
  const p50s = windows.map((w) => w.p50Ms).sort((a, b) => a - b);
  return {
    windows: windows.length,
    ok,
    failed: total((w) => w.failed),
    requestsPerSecond: ok / wall,
    /** Requests per CPU second of the gateway's processes: the driven data planes and the control plane. */
    requestsPerGatewayCore: ok / (dataPlanes + controlPlane),
    /** Requests per CPU second of one data plane (the driven ones' CPU summed). */
    requestsPerDataPlaneCore: ok / dataPlanes,
    /** The gateway's processes' CPU per second of the windows (CPU 0 holds them all when pinned). */
    gatewayCores: (dataPlanes + controlPlane) / wall,
    cpuMicrosPerRequest: {
      dataPlanes: micros(dataPlanes),
      controlPlane: micros(controlPlane),
      postgres: micros(total((w) => w.cpu.postgres)),
      postgresOwnBackends: micros(total((w) => w.cpu.postgresOwnBackends)),
      redis: micros(total((w) => w.cpu.redis)),
      mock: micros(total((w) => w.cpu.mock)),
      load: micros(total((w) => w.cpu.load)),
    },
    /** CPU per second of the data planes not driven, and of other work on the machine. */
    idlePlanesCores: total((w) => w.cpu.idlePlanes) / wall,
    otherCores: total((w) => w.cpu.other) / wall,
    /** Control-plane gRPC calls per 1,000 requests, by method and in all. */
    grpcCallsPer1000: Object.fromEntries([
      ...Object.entries(grpc).map(([method, count]) => [method, (count / ok) * 1000]),
      ["all", (grpcCalls / ok) * 1000],
    ] as [string, number][]),
    grpcCallsPerSecond: grpcCalls / wall,
    /** Draws per Draw call (how full the batches are). */
    drawsPerDrawCall: (holds.draw ?? 0) / (grpc.Draw ?? Number.NaN),
    moneyBatchesPer1000: (total((w) => w.controlPlane.batches) / ok) * 1000,
    p50Ms: p50s[Math.floor(p50s.length / 2)] ?? Number.NaN,
  };
}
type Summary = ReturnType<typeof summarize>;

/**
 * Where one control-plane core saturates. Naive: 1 / (its µs per request) at this N. Fitted: the
 * control plane's CPU per second = a·(req/s) + b·(data planes), fitted over every window of the mode
 * (a per request, b per data plane and second: its draw calls, heartbeats and reports, which a data
 * plane sends whatever its rate below 256 draws per interval). With every data plane at its own measured
 * req/s per core r (one core each), N = R / r and the control plane saturates at R = 1 / (a + b / r).
 * PostgreSQL's need at that rate from the same fit of its CPU. fullCore: the same with r from the data
 * planes' own fit (a data plane with a whole core: a_dp·r + b_dp = 1), since on this machine no data plane
 * gets a whole core.
 */
function extrapolate(mode: Mode, windows: Window[], summaries: Map<number, Summary>) {
  const rows = (pick: (w: Window) => number) =>
    windows.filter((w) => w.mode === mode && w.planes > 0).map((w) => ({ x1: w.ok / w.wall, x2: w.planes, y: pick(w) / w.wall }));
  const cp = fit2(rows((w) => w.cpu.controlPlane));
  const dp = fit2(rows((w) => sum(w.cpu.dataPlanes)));
  const pgAll = fit2(rows((w) => w.cpu.postgres));
  const pgOwn = fit2(rows((w) => w.cpu.postgresOwnBackends));
  const perN = [...summaries.entries()].map(([planes, summary]) => {
    const perPlane = summary.requestsPerDataPlaneCore;
    const naive = 1e6 / summary.cpuMicrosPerRequest.controlPlane;
    const fitted = 1 / (cp.a + cp.b / perPlane);
    const planesAt = fitted / perPlane;
    return {
      planes,
      /** One data plane's req/s per core at this N. */
      dataPlaneRequestsPerCore: perPlane,
      naive: {
        controlPlaneSaturatesAt: naive,
        dataPlanes: naive / perPlane,
        postgresCores: (naive * summary.cpuMicrosPerRequest.postgres) / 1e6,
        postgresOwnBackendsCores: (naive * summary.cpuMicrosPerRequest.postgresOwnBackends) / 1e6,
      },
      fitted: {
        controlPlaneSaturatesAt: fitted,
        dataPlanes: planesAt,
        postgresCores: pgAll.a * fitted + pgAll.b * planesAt,
        postgresOwnBackendsCores: pgOwn.a * fitted + pgOwn.b * planesAt,
      },
    };
  });
  // A data plane with a core of its own: its CPU per second is a·r + b = 1 (from the same kind of fit).
  const fullCoreRate = (1 - dp.b) / dp.a;
  const fullCoreSaturation = 1 / (cp.a + cp.b / fullCoreRate);
  const fullCorePlanes = fullCoreSaturation / fullCoreRate;
  return {
    mode,
    fit: {
      dataPlanes: { microsPerRequest: dp.a * 1e6, coresPerDataPlane: dp.b },
      controlPlane: { microsPerRequest: cp.a * 1e6, coresPerDataPlane: cp.b },
      postgres: { microsPerRequest: pgAll.a * 1e6, coresPerDataPlane: pgAll.b },
      postgresOwnBackends: { microsPerRequest: pgOwn.a * 1e6, coresPerDataPlane: pgOwn.b },
    },
    perN,
    /** Every data plane at one full core (the data planes' fit), the control plane's and PostgreSQL's fits. */
    fullCore: {
      dataPlaneRequestsPerCore: fullCoreRate,
      controlPlaneSaturatesAt: fullCoreSaturation,
      dataPlanes: fullCorePlanes,
      postgresCores: pgAll.a * fullCoreSaturation + pgAll.b * fullCorePlanes,
      postgresOwnBackendsCores: pgOwn.a * fullCoreSaturation + pgOwn.b * fullCorePlanes,
    },
  };
}

const fixed = (value: number, digits = 0) => (Number.isFinite(value) ? value.toFixed(digits) : "-");

try {
  await stack.start();
  // Only the data planes started here are measured: the floor and the stack's own data plane go.
  await stack.floor.stop();
  await stack.dataPlane.stop();
  if (pinned) pin(process.pid, "1");
  for (let index = 1; index <= maxPlanes; index++) {
    const plane = await stack.startDataPlane(stack.dataPlaneRuntime, `bench-scale-out-${index}`, `data-plane-${index}`);
    plane.child.stdout!.removeAllListeners("data");
    plane.child.stdout!.resume();
    if (pinned) pin(plane.child.pid!, "0");
    planes.push(plane);
  }
  const machine = {
    node: process.version,
    cpus: os.cpus().length,
    cpuModel: os.cpus()[0]?.model,
    loadAverageAtStart: os.loadavg(),
    pinned,
    startedAt: new Date().toISOString(),
  };
  console.log(
    `scale-out: ${planeCounts.join("/")} data planes, total concurrency ${concurrency}, modes ${modes.join(",")}, ` +
      `${rounds} rounds of ${seconds} s (lead-in ${leadInSeconds} s), warm-up ${args.warmup} s per mode, pinned ${pinned}, node ${process.version}`,
  );
  // Every data plane warms up (all at once, the concurrency split across them), then the idle baseline.
  for (const mode of modes) await measure(planes, mode, -1, 0, Number(args.warmup));
  const windows: Window[] = [];
  const idleWindows: Window[] = [];
  for (let round = 0; round < rounds; round++) {
    const order = [...planeCounts.slice(round % planeCounts.length), ...planeCounts.slice(0, round % planeCounts.length)];
    for (const mode of modes) {
      for (const count of order) {
        const w = await measure(planes.slice(0, count), mode, round, leadInSeconds, seconds);
        windows.push(w);
        console.log(
          `round ${round} ${mode} N=${count}: ${fixed(w.ok / w.wall)} req/s, gateway ${fixed(sum(w.cpu.dataPlanes) + w.cpu.controlPlane, 2)} CPU s, ` +
            `control plane ${fixed((w.cpu.controlPlane / w.ok) * 1e6, 1)} µs/req, postgres ${fixed((w.cpu.postgres / w.ok) * 1e6, 1)} µs/req, other ${fixed(w.cpu.other / w.wall, 2)} cores, failed ${w.failed}`,
        );
        await sleep(300);
      }
    }
    // No load: what the attached data planes cost the control plane and PostgreSQL by themselves.
    idleWindows.push(await measure([], modes[0]!, round, 0, seconds));
  }

  const results = modes.map((mode) => {
    const summaries = new Map(planeCounts.map((count) => [count, summarize(windows.filter((w) => w.mode === mode && w.planes === count))]));
    return { mode, byPlanes: Object.fromEntries(summaries), extrapolation: extrapolate(mode, windows, summaries) };
  });
  const idleWall = sum(idleWindows.map((w) => w.wall));
  const idle = {
    planesAttached: maxPlanes,
    cores: {
      dataPlanes: sum(idleWindows.map((w) => w.cpu.idlePlanes)) / idleWall,
      controlPlane: sum(idleWindows.map((w) => w.cpu.controlPlane)) / idleWall,
      postgres: sum(idleWindows.map((w) => w.cpu.postgres)) / idleWall,
      postgresOwnBackends: sum(idleWindows.map((w) => w.cpu.postgresOwnBackends)) / idleWall,
      redis: sum(idleWindows.map((w) => w.cpu.redis)) / idleWall,
      other: sum(idleWindows.map((w) => w.cpu.other)) / idleWall,
    },
    grpcCallsPerSecond: sum(idleWindows.flatMap((w) => Object.values(w.controlPlane.grpc))) / idleWall,
  };

  console.log(
    "\nmode   N  req/s  req/s/gw-core  req/s/DP-core  DP µs  CP µs  PG µs (own)  Redis µs  mock µs  load µs  gRPC/1k  draws/Draw  other cores  failed",
  );
  for (const { mode, byPlanes } of results) {
    for (const [count, s] of Object.entries(byPlanes)) {
      const m = s.cpuMicrosPerRequest;
      console.log(
        `${mode.padEnd(6)} ${count.padStart(1)} ${fixed(s.requestsPerSecond).padStart(6)} ${fixed(s.requestsPerGatewayCore).padStart(14)} ${fixed(s.requestsPerDataPlaneCore).padStart(14)} ` +
          `${fixed(m.dataPlanes, 1).padStart(6)} ${fixed(m.controlPlane, 1).padStart(6)} ${`${fixed(m.postgres, 1)} (${fixed(m.postgresOwnBackends, 1)})`.padStart(12)} ` +
          `${fixed(m.redis, 1).padStart(9)} ${fixed(m.mock, 1).padStart(8)} ${fixed(m.load, 1).padStart(8)} ${fixed(s.grpcCallsPer1000.all!, 1).padStart(8)} ` +
          `${fixed(s.drawsPerDrawCall, 1).padStart(11)} ${fixed(s.otherCores, 2).padStart(12)} ${String(s.failed).padStart(7)}`,
      );
    }
  }
  console.log(
    `\nidle (${maxPlanes} data planes attached, no load), cores: control plane ${fixed(idle.cores.controlPlane, 4)}, data planes ${fixed(idle.cores.dataPlanes, 4)}, ` +
      `postgres ${fixed(idle.cores.postgres, 4)} (own backends ${fixed(idle.cores.postgresOwnBackends, 4)}), redis ${fixed(idle.cores.redis, 4)}; ` +
      `${fixed(idle.grpcCallsPerSecond, 1)} gRPC calls/s; other work ${fixed(idle.cores.other, 2)} cores`,
  );
  for (const { mode, extrapolation } of results) {
    const { fit } = extrapolation;
    console.log(
      `\n${mode}: fit over the windows: data planes ${fixed(fit.dataPlanes.microsPerRequest, 1)} µs/req + ${fixed(fit.dataPlanes.coresPerDataPlane * 1e3, 2)} ms/s per data plane; control plane ${fixed(fit.controlPlane.microsPerRequest, 1)} µs/req + ${fixed(fit.controlPlane.coresPerDataPlane * 1e3, 2)} ms/s per data plane; ` +
        `postgres ${fixed(fit.postgres.microsPerRequest, 1)} µs/req + ${fixed(fit.postgres.coresPerDataPlane * 1e3, 2)} ms/s per data plane ` +
        `(own backends ${fixed(fit.postgresOwnBackends.microsPerRequest, 1)} + ${fixed(fit.postgresOwnBackends.coresPerDataPlane * 1e3, 2)})`,
    );
    for (const n of extrapolation.perN) {
      console.log(
        `  at N=${n.planes}'s figures (a data plane ${fixed(n.dataPlaneRequestsPerCore)} req/s per core): one control-plane core saturates at ` +
          `${fixed(n.naive.controlPlaneSaturatesAt)} req/s naive (${fixed(n.naive.dataPlanes, 1)} data planes, postgres ${fixed(n.naive.postgresCores, 2)} cores, own backends ${fixed(n.naive.postgresOwnBackendsCores, 2)}), ` +
          `${fixed(n.fitted.controlPlaneSaturatesAt)} req/s fitted (${fixed(n.fitted.dataPlanes, 1)} data planes, postgres ${fixed(n.fitted.postgresCores, 2)} cores, own backends ${fixed(n.fitted.postgresOwnBackendsCores, 2)})`,
      );
    }
    const full = extrapolation.fullCore;
    console.log(
      `  every data plane at a full core (${fixed(full.dataPlaneRequestsPerCore)} req/s each, fitted): one control-plane core saturates at ` +
        `${fixed(full.controlPlaneSaturatesAt)} req/s (${fixed(full.dataPlanes, 1)} data planes, postgres ${fixed(full.postgresCores, 2)} cores, own backends ${fixed(full.postgresOwnBackendsCores, 2)})`,
    );
  }

  mkdirSync(path.dirname(args.out), { recursive: true });
  writeFileSync(
    args.out,
    `${JSON.stringify(
      {
        machine: { ...machine, finishedAt: new Date().toISOString(), loadAverageAtEnd: os.loadavg() },
        options: {
          planes: planeCounts,
          modes,
          concurrency,
          rounds,
          seconds,
          leadInSeconds,
          warmupSeconds: Number(args.warmup),
          model: args.model,
        },
        results,
        idle,
        windows,
      },
      null,
      2,
    )}\n`,
  );
  console.log(`written: ${args.out}`);
} finally {
  for (const plane of planes) await plane.stop().catch(() => null);
  await stack.stop();
}
