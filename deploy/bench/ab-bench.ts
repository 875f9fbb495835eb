// An interleaved A/B of two data planes on one stack: A is the data plane of a
// git ref (built from a worktree of it), B the working tree's. Both are started
// alike (production bundles, the same environment, their logs read and dropped
// the same way), pinned to the gateway CPU with the control plane; the mock
// and the load share the other CPU. Every round runs A then B, or B then A
// (then the mock alone), so neither always follows the other or the idle
// gateway; each window counts the responses and the CPU of its data plane and
// of the control plane. docs/benchmark.md ("Interleaved A/B") explains it, and
// an A/A run (--base HEAD on a clean tree) shows the harness's own noise.
//
//   tsx deploy/bench/ab-bench.ts --base <git ref> [--postgres] [--rounds 10] [--seconds 4]
//                                [--cases json:64,stream:64,json:1,stream:1] [--out <file>] [--cpu-prof <dir>]
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import type { ServiceProcess, ServiceRuntime } from "../local/service-process";
import { repositoryRoot } from "../local/service-process";
import { BenchStack, upstreamHeaders } from "./bench-stack";
import { drive, percentiles, type Target } from "./load";
import { cpuSeconds, pin, tasksetAvailable } from "./process-stats";

const { values: args } = parseArgs({
  options: {
    base: { type: "string" },
    postgres: { type: "boolean", default: false },
    rounds: { type: "string", default: "10" },
    seconds: { type: "string", default: "4" },
    warmup: { type: "string", default: "15" },
    cases: { type: "string", default: "json:64,stream:64,json:1,stream:1" },
    model: { type: "string", default: "gpt-4.1-mini" },
    out: { type: "string", default: path.join(repositoryRoot, "deploy/bench/results/ab-latest.json") },
    /** Both data planes write a V8 CPU profile (<dir>/<pid>.cpuprofile) when they stop; profile-top.ts reads them. */
    "cpu-prof": { type: "string" },
  },
});
if (!args.base) throw new Error("--base <git ref>: the data plane to compare the working tree's with");

const rounds = Number(args.rounds);
const seconds = Number(args.seconds);
const cases = args.cases.split(",").map((entry) => {
  const [mode, concurrency] = entry.split(":");
  if (mode !== "json" && mode !== "stream") throw new Error(`a case is json:<concurrency> or stream:<concurrency>, not ${entry}`);
  return { mode: mode as "json" | "stream", concurrency: Number(concurrency) };
});
const pinned = tasksetAvailable() && os.cpus().length >= 2;

function body(mode: "json" | "stream"): string {
  const messages = [{ role: "user", content: "Hello" }];
  return JSON.stringify(
    mode === "stream"
      ? { model: args.model, stream: true, stream_options: { include_usage: true }, messages }
      : { model: args.model, messages },
  );
}

/** The base ref's data-plane bundle, built in a detached worktree of it (its own install, offline from the store). */
function buildBaseBundle(ref: string, dir: string): { file: string; commit: string } {
  const tree = path.join(dir, "base");
  execFileSync("git", ["worktree", "add", "--detach", tree, ref], { cwd: repositoryRoot, stdio: "inherit" });
  const commit = execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd: tree }).toString().trim();
  execFileSync("npx", ["--yes", "pnpm@10.34.8", "install", "--frozen-lockfile", "--prefer-offline", "--reporter=silent"], {
    cwd: tree,
    stdio: "inherit",
  });
  const file = path.join(tree, "dist", "data-plane.mjs");
  execFileSync(process.execPath, ["--import", "tsx", "deploy/build/bundle-data-plane.ts", file], { cwd: tree, stdio: "inherit" });
  return { file, commit };
}

interface Window {
  ok: number;
  failed: number;
  p50: number;
  /** CPU seconds of the data plane and of the control plane during the window. */
  dataPlaneCpu: number;
  controlPlaneCpu: number;
}

async function window(stack: BenchStack, target: Target, pid: number | undefined, mode: "json" | "stream", concurrency: number) {
  const before = pid ? [cpuSeconds(pid), cpuSeconds(stack.controlPlane.child.pid!)] : [0, 0];
  const samples = await drive(target, body(mode), concurrency, seconds);
  const after = pid ? [cpuSeconds(pid), cpuSeconds(stack.controlPlane.child.pid!)] : [0, 0];
  return {
    ok: samples.ok,
    failed: samples.failed,
    p50: percentiles(samples.latencies).p50,
    dataPlaneCpu: after[0]! - before[0]!,
    controlPlaneCpu: after[1]! - before[1]!,
  } satisfies Window;
}

const summary = (windows: Window[]) => {
  const ok = windows.reduce((sum, w) => sum + w.ok, 0);
  const cpu = windows.reduce((sum, w) => sum + w.dataPlaneCpu + w.controlPlaneCpu, 0);
  const dataPlane = windows.reduce((sum, w) => sum + w.dataPlaneCpu, 0);
  const sortedP50 = windows.map((w) => w.p50).sort((a, b) => a - b);
  return {
    requestsPerSecond: ok / (windows.length * seconds),
    requestsPerCore: ok / cpu,
    dataPlaneMicrosPerRequest: (dataPlane / ok) * 1e6,
    controlPlaneMicrosPerRequest: ((cpu - dataPlane) / ok) * 1e6,
    /** The median of the windows' p50 latencies. */
    p50Ms: sortedP50[Math.floor(sortedP50.length / 2)]!,
    failed: windows.reduce((sum, w) => sum + w.failed, 0),
  };
};

const scratch = mkdtempSync(path.join(os.tmpdir(), "gateway-ab-"));
const stack = new BenchStack({
  backend: args.postgres ? "postgresql" : "pglite",
  postgresUrl: process.env.BENCH_POSTGRES_URL ?? "postgresql://postgres@127.0.0.1:5432/test",
  redisUrl: process.env.BENCH_REDIS_URL ?? "redis://127.0.0.1:6379",
  gatewayCpus: pinned ? "0" : undefined,
  loadCpus: pinned ? "1" : undefined,
  ...(args["cpu-prof"]
    ? {
        dataPlaneEnv: {
          NODE_OPTIONS: `--import ${path.join(repositoryRoot, "deploy/bench/cpu-profiler.mjs")}`,
          BENCH_CPU_PROFILE_DIR: path.resolve(args["cpu-prof"]),
        },
      }
    : {}),
});
const planes: ServiceProcess[] = [];
/** A data plane of the comparison: started, pinned and its log dropped, the same for A and B. */
async function startPlane(runtime: ServiceRuntime, name: "a" | "b"): Promise<ServiceProcess> {
  const plane = await stack.startDataPlane(runtime, `bench-data-plane-${name}`, `data-plane-${name}`);
  planes.push(plane);
  plane.child.stdout!.removeAllListeners("data");
  plane.child.stdout!.resume();
  if (pinned) pin(plane.child.pid!, "0");
  return plane;
}
try {
  const base = buildBaseBundle(args.base, scratch);
  await stack.start();
  // Neither the floor nor the stack's own data plane (whose log the stack keeps a tail of) is compared.
  await stack.floor.stop();
  await stack.dataPlane.stop();
  const a = await startPlane({ kind: "bundle", file: base.file }, "a");
  const b = await startPlane(stack.dataPlaneRuntime, "b");
  if (pinned) pin(process.pid, "1");
  const headers = { authorization: `Bearer ${stack.key}` };
  const targets = {
    A: { target: { url: `${a.ready.url}/v1/chat/completions`, headers }, pid: a.child.pid! },
    B: { target: { url: `${b.ready.url}/v1/chat/completions`, headers }, pid: b.child.pid! },
    mock: { target: { url: `${stack.mockUrl}/v1/chat/completions`, headers: upstreamHeaders }, pid: undefined },
  };
  for (const mode of ["json", "stream"] as const) {
    for (const name of ["A", "B", "mock"] as const) await drive(targets[name].target, body(mode), 16, Number(args.warmup));
  }
  // Profiles start once both are warm (cpu-profiler.mjs listens for SIGUSR2).
  if (args["cpu-prof"]) for (const pid of [targets.A.pid, targets.B.pid]) process.kill(pid, "SIGUSR2");

  const results = [];
  for (const { mode, concurrency } of cases) {
    const windows: Record<"A" | "B" | "mock", Window[]> = { A: [], B: [], mock: [] };
    const ratios: number[] = [];
    for (let round = 0; round < rounds; round++) {
      const order = (round % 2 === 0 ? ["A", "B", "mock"] : ["B", "A", "mock"]) as ("A" | "B" | "mock")[];
      for (const name of order) windows[name].push(await window(stack, targets[name].target, targets[name].pid, mode, concurrency));
      const lastA = windows.A.at(-1)!;
      const lastB = windows.B.at(-1)!;
      ratios.push(lastB.ok / (lastB.dataPlaneCpu + lastB.controlPlaneCpu) / (lastA.ok / (lastA.dataPlaneCpu + lastA.controlPlaneCpu)));
    }
    const A = summary(windows.A);
    const B = summary(windows.B);
    const mock = summary(windows.mock);
    const result = {
      mode,
      concurrency,
      A,
      B,
      mockP50Ms: mock.p50Ms,
      overheadP50Ms: { A: A.p50Ms - mock.p50Ms, B: B.p50Ms - mock.p50Ms },
      /** B / A per round: requests per CPU-second of the gateway (data + control plane). */
      perCoreRatio: { mean: ratios.reduce((s, r) => s + r, 0) / ratios.length, min: Math.min(...ratios), max: Math.max(...ratios) },
      /** Every window, in the order the rounds ran them (even rounds A first, odd rounds B first). */
      windows,
    };
    results.push(result);
    console.log(
      `${mode} c=${concurrency} (data planes: A pid ${targets.A.pid}, B pid ${targets.B.pid}): req/s per core A ${A.requestsPerCore.toFixed(0)} B ${B.requestsPerCore.toFixed(0)} ` +
        `(B/A ${(B.requestsPerCore / A.requestsPerCore).toFixed(3)}, per round ${result.perCoreRatio.min.toFixed(3)}-${result.perCoreRatio.max.toFixed(3)}); ` +
        `data plane µs/req A ${A.dataPlaneMicrosPerRequest.toFixed(1)} B ${B.dataPlaneMicrosPerRequest.toFixed(1)}; ` +
        `p50 overhead A ${result.overheadP50Ms.A.toFixed(3)} B ${result.overheadP50Ms.B.toFixed(3)} ms; failed ${A.failed}/${B.failed}`,
    );
  }
  mkdirSync(path.dirname(args.out), { recursive: true });
  writeFileSync(
    args.out,
    `${JSON.stringify({ base: { ref: args.base, commit: base.commit }, node: process.version, rounds, seconds, postgres: args.postgres, pinned, results }, null, 2)}\n`,
  );
  console.log(`written: ${args.out}`);
} finally {
  for (const plane of planes) await plane.stop().catch(() => null);
  await stack.stop();
  if (existsSync(path.join(scratch, "base"))) {
    execFileSync("git", ["worktree", "remove", "--force", path.join(scratch, "base")], { cwd: repositoryRoot, stdio: "inherit" });
  }
  rmSync(scratch, { recursive: true, force: true });
}
