// An interleaved A/B of two data planes on one stack: A is the data plane of a
// git ref (built from a worktree of it), B the working tree's. Both are started
// alike (production bundles, the same environment, their logs read and dropped
// the same way), pinned to the gateway CPU with the control plane; the mock
// and the load share the other CPU. Half the rounds run with A started first,
// half with B first (which one was started second moved the result by several
// per cent here, whatever its code); every round runs A then B, or B then A,
// then the mock alone. Each window counts the responses and the CPU of its data
// plane and of the control plane. docs/benchmark.md ("Interleaved A/B")
// explains it; an A/A run (--base HEAD on a clean tree) shows its own noise.
//
//   tsx deploy/bench/ab-bench.ts --base <git ref> [--postgres] [--rounds 10] [--seconds 4]
//                                [--cases json:64,stream:64,json:1,stream:1]  (json:64@600: 600 requests a second in all, on 64 connections) [--out <file>] [--cpu-prof <dir>]
//                                [--dialect chat|responses|messages]  (the client dialect of every case: chat completions by default)
//                                [--tracing]  (B's data plane traces every request, to a sink in this process: trace-sink.ts)
//                                [--prompt-bytes N]  (the user message padded to N bytes, as size-bench.ts sends)
//                                [--b-env NAME=value,...]  (B's data plane runs with these set: with --base HEAD, what a
//                                                          setting costs, e.g. LOG_LEVEL=warn for the per-request log line)
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import type { ServiceProcess, ServiceRuntime } from "../local/service-process";
import { repositoryRoot } from "../local/service-process";
import { BENCH_POSTGRES_URL, BENCH_REDIS_URL, BenchStack, profileEnv, upstreamHeaders } from "./bench-stack";
import { startTraceSink } from "./trace-sink";
import { chatBody, chatBodyWithPrompt, drive, messagesBody, percentiles, responsesBody, type Target } from "./load";
import { cpuSeconds, pin, tasksetAvailable } from "./process-stats";

const { values: args } = parseArgs({
  options: {
    base: { type: "string" },
    postgres: { type: "boolean", default: false },
    rounds: { type: "string", default: "10" },
    seconds: { type: "string", default: "4" },
    warmup: { type: "string", default: "15" },
    cases: { type: "string", default: "json:64,stream:64,json:1,stream:1" },
    dialect: { type: "string", default: "chat" },
    model: { type: "string", default: "gpt-4.1-mini" },
    out: { type: "string", default: path.join(repositoryRoot, "deploy/bench/results/ab-latest.json") },
    /** Both data planes write a V8 CPU profile (<dir>/data-plane/<pid>.cpuprofile) when they stop; profile-top.ts reads them. */
    "cpu-prof": { type: "string" },
    /**
     * B's data plane exports every request's spans (its cost is B/A). The control plane, shared by A and B,
     * stays untraced: traced, it would make spans of A's calls too. gateway-bench.ts --tracing traces both.
     */
    tracing: { type: "boolean", default: false },
    "b-env": { type: "string", default: "" },
    "prompt-bytes": { type: "string" },
  },
});
if (!args.base) throw new Error("--base <git ref>: the data plane to compare the working tree's with");

const rounds = Number(args.rounds);
const seconds = Number(args.seconds);
/** A window's load: `rate` requests a second in all when set (the CPU each costs, off saturation), else as fast as answered. */
interface Case {
  mode: "json" | "stream";
  concurrency: number;
  rate: number | undefined;
}
const cases: Case[] = args.cases.split(",").map((entry) => {
  const match = /^(json|stream):(\d+)(?:@(\d+))?$/.exec(entry);
  if (!match)
    throw new Error(`a case is json:<concurrency> or stream:<concurrency>, with @<requests a second> for a fixed pace, not ${entry}`);
  return { mode: match[1] as "json" | "stream", concurrency: Number(match[2]), rate: match[3] ? Number(match[3]) : undefined };
});
const pinned = tasksetAvailable() && os.cpus().length >= 2;
/** --b-env: B's own settings. */
const bEnv: Record<string, string> = Object.fromEntries(
  args["b-env"]
    .split(",")
    .filter(Boolean)
    .map((entry) => {
      const at = entry.indexOf("=");
      if (at < 1) throw new Error(`--b-env takes NAME=value pairs, not ${entry}`);
      return [entry.slice(0, at), entry.slice(at + 1)];
    }),
);

const promptBytes = args["prompt-bytes"] === undefined ? undefined : Number(args["prompt-bytes"]);
if (promptBytes !== undefined && !(Number.isInteger(promptBytes) && promptBytes > 0))
  throw new Error(`--prompt-bytes takes a positive number of bytes, not ${args["prompt-bytes"]}`);
const dialect = args.dialect;
if (dialect !== "chat" && dialect !== "responses" && dialect !== "messages")
  throw new Error(`--dialect is chat, responses or messages, not ${dialect}`);
if (promptBytes !== undefined && dialect !== "chat") throw new Error("--prompt-bytes is for the chat dialect");
/** The route of the dialect's calls, and the Anthropic model a Messages client asks for (answered by the mock's Messages API). */
const ROUTE = { chat: "/v1/chat/completions", responses: "/v1/responses", messages: "/v1/messages" }[dialect];
const MESSAGES_MODEL = "anthropic/claude-sonnet-4";
const body = (mode: "json" | "stream") =>
  dialect === "messages"
    ? messagesBody(MESSAGES_MODEL, mode)
    : dialect === "responses"
      ? responsesBody(args.model, mode)
      : promptBytes === undefined
        ? chatBody(args.model, mode)
        : chatBodyWithPrompt(args.model, mode, promptBytes);
/** A client's headers for the dialect: Anthropic's clients send their key in x-api-key, with the API version. */
const clientHeaders = (bearer: string): Record<string, string> =>
  dialect === "messages" ? { "x-api-key": bearer, "anthropic-version": "2023-06-01" } : { authorization: `Bearer ${bearer}` };

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

async function window(stack: BenchStack, target: Target, pid: number | undefined, { mode, concurrency, rate }: Case) {
  const before = pid ? [cpuSeconds(pid), cpuSeconds(stack.controlPlane.child.pid!)] : [0, 0];
  const samples = await drive(target, body(mode), concurrency, seconds, rate);
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
  postgresUrl: BENCH_POSTGRES_URL,
  redisUrl: BENCH_REDIS_URL,
  gatewayCpus: pinned ? "0" : undefined,
  loadCpus: pinned ? "1" : undefined,
  dataPlaneEnv: profileEnv(args["cpu-prof"], "data-plane"),
});
const traceSink = args.tracing ? await startTraceSink() : undefined;
const planes: ServiceProcess[] = [];
/** A data plane of the comparison: started, pinned and its log dropped, the same for A and B. */
async function startPlane(runtime: ServiceRuntime, name: "a" | "b"): Promise<ServiceProcess> {
  const env = name === "b" ? { ...traceSink?.env, ...bEnv } : {};
  const plane = await stack.startDataPlane(runtime, `bench-data-plane-${name}`, `data-plane-${name}`, env);
  planes.push(plane);
  plane.child.stdout!.removeAllListeners("data");
  plane.child.stdout!.resume();
  if (pinned) pin(plane.child.pid!, "0");
  return plane;
}
type Name = "A" | "B" | "mock";
type Targets = Record<Name, { target: Target; pid: number | undefined }>;

/**
 * Starts both data planes, `first` before the other, and warms them up. The order matters: which one
 * was started second moved the result by several per cent on this machine, whatever its code
 * (docs/benchmark.md, "Interleaved A/B"), so each half of the rounds starts them the other way round.
 */
async function startPair(runtimes: Record<"A" | "B", ServiceRuntime>, first: "A" | "B"): Promise<Targets> {
  const second = first === "A" ? "B" : "A";
  const started = { [first]: await startPlane(runtimes[first], first === "A" ? "a" : "b") } as Record<"A" | "B", ServiceProcess>;
  started[second] = await startPlane(runtimes[second], second === "A" ? "a" : "b");
  const headers = clientHeaders(stack.key);
  const mockHeaders = clientHeaders(upstreamHeaders.authorization.slice("Bearer ".length));
  const targets: Targets = {
    A: { target: { url: `${started.A.ready.url}${ROUTE}`, headers }, pid: started.A.child.pid! },
    B: { target: { url: `${started.B.ready.url}${ROUTE}`, headers }, pid: started.B.child.pid! },
    mock: { target: { url: `${stack.mockUrl}${ROUTE}`, headers: mockHeaders }, pid: undefined },
  };
  for (const mode of ["json", "stream"] as const) {
    for (const name of ["A", "B", "mock"] as const) await drive(targets[name].target, body(mode), 16, Number(args.warmup));
  }
  // Profiles start once both are warm (cpu-profiler.mjs listens for SIGUSR2).
  if (args["cpu-prof"]) for (const name of ["A", "B"] as const) process.kill(targets[name].pid!, "SIGUSR2");
  return targets;
}

let stopMockResets = () => {};
try {
  const base = buildBaseBundle(args.base, scratch);
  await stack.start();
  if (promptBytes !== undefined) stopMockResets = stack.keepMockLogEmpty();
  // Neither the floor nor the stack's own data plane (whose log the stack keeps a tail of) is compared.
  await stack.floor.stop();
  await stack.dataPlane.stop();
  if (pinned) pin(process.pid, "1");
  const runtimes: Record<"A" | "B", ServiceRuntime> = { A: { kind: "bundle", file: base.file }, B: stack.dataPlaneRuntime };

  const windows = cases.map(() => ({ A: [] as Window[], B: [] as Window[], mock: [] as Window[] }));
  const ratios = cases.map(() => [] as number[]);
  const pids: Record<"A" | "B", number[]> = { A: [], B: [] };
  // Two halves: A started first, then B; within each, rounds alternate A,B and B,A (then the mock).
  for (const first of ["A", "B"] as const) {
    const targets = await startPair(runtimes, first);
    pids.A.push(targets.A.pid!);
    pids.B.push(targets.B.pid!);
    for (const [index, benchCase] of cases.entries()) {
      const caseWindows = windows[index]!;
      const roundsHere = first === "A" ? Math.ceil(rounds / 2) : Math.floor(rounds / 2);
      for (let round = 0; round < roundsHere; round++) {
        const order: Name[] = round % 2 === 0 ? ["A", "B", "mock"] : ["B", "A", "mock"];
        for (const name of order) caseWindows[name].push(await window(stack, targets[name].target, targets[name].pid, benchCase));
        const lastA = caseWindows.A.at(-1)!;
        const lastB = caseWindows.B.at(-1)!;
        ratios[index]!.push(
          lastB.ok / (lastB.dataPlaneCpu + lastB.controlPlaneCpu) / (lastA.ok / (lastA.dataPlaneCpu + lastA.controlPlaneCpu)),
        );
      }
    }
    for (const plane of planes.splice(0)) await plane.stop();
  }

  const results = cases.map(({ mode, concurrency, rate }, index) => {
    const caseWindows = windows[index]!;
    const caseRatios = ratios[index]!;
    const A = summary(caseWindows.A);
    const B = summary(caseWindows.B);
    const mock = summary(caseWindows.mock);
    const result = {
      mode,
      concurrency,
      ...(rate ? { rate } : {}),
      A,
      B,
      mockP50Ms: mock.p50Ms,
      overheadP50Ms: { A: A.p50Ms - mock.p50Ms, B: B.p50Ms - mock.p50Ms },
      /** B / A per round: requests per CPU-second of the gateway (data + control plane). */
      perCoreRatio: {
        mean: caseRatios.reduce((sum, ratio) => sum + ratio, 0) / caseRatios.length,
        min: Math.min(...caseRatios),
        max: Math.max(...caseRatios),
      },
      /** Every window in the order run: the first half with A started first, the second with B first. */
      windows: caseWindows,
    };
    console.log(
      `${mode} c=${concurrency}${rate ? ` at ${rate}/s` : ""} (data planes: A pids ${pids.A.join(",")}, B pids ${pids.B.join(",")}): req/s per core A ${A.requestsPerCore.toFixed(0)} B ${B.requestsPerCore.toFixed(0)} ` +
        `(B/A ${(B.requestsPerCore / A.requestsPerCore).toFixed(3)}, per round ${result.perCoreRatio.min.toFixed(3)}-${result.perCoreRatio.max.toFixed(3)}); ` +
        `data plane µs/req A ${A.dataPlaneMicrosPerRequest.toFixed(1)} B ${B.dataPlaneMicrosPerRequest.toFixed(1)}; ` +
        `p50 overhead A ${result.overheadP50Ms.A.toFixed(3)} B ${result.overheadP50Ms.B.toFixed(3)} ms; failed ${A.failed}/${B.failed}`,
    );
    return result;
  });
  mkdirSync(path.dirname(args.out), { recursive: true });
  writeFileSync(
    args.out,
    `${JSON.stringify({ base: { ref: args.base, commit: base.commit }, node: process.version, rounds, seconds, postgres: args.postgres, dialect, promptBytes, pinned, tracing: traceSink?.stats() ?? false, bEnv, results }, null, 2)}\n`,
  );
  if (traceSink)
    console.log(`B traced: ${traceSink.stats().exports} OTLP exports, ${(traceSink.stats().bytes / 1024 / 1024).toFixed(1)} MB`);
  console.log(`written: ${args.out}`);
} finally {
  stopMockResets();
  for (const plane of planes) await plane.stop().catch(() => null);
  await stack.stop();
  await traceSink?.close();
  if (existsSync(path.join(scratch, "base"))) {
    execFileSync("git", ["worktree", "remove", "--force", path.join(scratch, "base")], { cwd: repositoryRoot, stdio: "inherit" });
  }
  rmSync(scratch, { recursive: true, force: true });
}
