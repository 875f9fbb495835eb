// Where the data plane's CPU per request goes, case by case (issue 22): one stack (control plane, a data plane
// with every feature on through tsx so that files name the parts, the mock, the undici floor), warmed up; then
// for each case the floor alone and the data plane alone under the same load, the data plane profiled for
// exactly that window (cpu-profiler.mjs: SIGUSR2 starts and stops). Prints, per case, the floor's and the data
// plane's CPU µs per request and the data plane's µs per request by part (profile-parts.ts), and writes JSON.
//
//   tsx deploy/bench/profile-case.ts [--cases json:64,stream:64,json:1,stream:1] [--seconds 10] [--postgres]
//                                    [--out deploy/bench/results/profile-parts.json] [--profiles <dir>]
//                                    [--prompt-bytes <n>]  (a user message of n bytes, as size-bench.ts sends)
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { repositoryRoot } from "../local/service-process";
import { BENCH_POSTGRES_URL, BENCH_REDIS_URL, BenchStack, profileEnv, upstreamHeaders } from "./bench-stack";
import { chatBody, chatBodyWithPrompt, drive, type Target } from "./load";
import { cpuSeconds, pin, tasksetAvailable } from "./process-stats";
import { type Part, PARTS, type Profile, partsOf } from "./profile-parts";

const { values: args } = parseArgs({
  options: {
    cases: { type: "string", default: "json:64,stream:64,json:1,stream:1" },
    seconds: { type: "string", default: "10" },
    warmup: { type: "string", default: "15" },
    "prompt-bytes": { type: "string" },
    model: { type: "string", default: "gpt-4.1-mini" },
    postgres: { type: "boolean", default: false },
    out: { type: "string", default: path.join(repositoryRoot, "deploy/bench/results/profile-parts.json") },
    profiles: { type: "string", default: path.join(repositoryRoot, ".data/bench-profiles") },
  },
});
const seconds = Number(args.seconds);
/** --prompt-bytes: the user message padded to that size (size-bench.ts), else the usual "Hello". */
const promptBytes = args["prompt-bytes"] === undefined ? undefined : Number(args["prompt-bytes"]);
const bodyOf = (mode: "json" | "stream") =>
  promptBytes === undefined ? chatBody(args.model, mode) : chatBodyWithPrompt(args.model, mode, promptBytes);
const cases = args.cases.split(",").map((entry) => {
  const [mode, concurrency] = entry.split(":");
  if ((mode !== "json" && mode !== "stream") || !Number(concurrency)) throw new Error(`a case is json:N or stream:N, not ${entry}`);
  return { mode, concurrency: Number(concurrency) } as const;
});

rmSync(args.profiles, { recursive: true, force: true });
const pinned = tasksetAvailable() && os.cpus().length >= 2;
const stack = new BenchStack({
  backend: args.postgres ? "postgresql" : "pglite",
  postgresUrl: BENCH_POSTGRES_URL,
  redisUrl: BENCH_REDIS_URL,
  gatewayCpus: pinned ? "0" : undefined,
  loadCpus: pinned ? "1" : undefined,
  dataPlaneEnv: profileEnv(args.profiles, "data-plane"),
  dataPlaneRuntime: "tsx",
});

interface CaseFigures {
  mode: string;
  concurrency: number;
  floor: { requests: number; cpuMicrosPerRequest: number };
  dataPlane: { requests: number; failed: number; cpuMicrosPerRequest: number };
  controlPlaneMicrosPerRequest: number;
  /**
   * µs per request by part: each part's share of the profile's samples times the data plane's CPU per request
   * (from /proc). The profile counts wall time between samples, which on a shared CPU includes time the data
   * plane waited for the control plane: its shares, not its totals, are what it tells.
   */
  parts: Record<Part, number>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

try {
  await stack.start();
  await stack.loadCloudModels(); // --model anthropic/claude-sonnet-4-on-bedrock profiles the Bedrock path (bench-stack.ts CLOUD_MODELS)
  if (pinned) pin(process.pid, "1");
  const dataPlanePid = stack.dataPlane.child.pid!;
  const controlPlanePid = stack.controlPlane.child.pid!;
  const floorPid = stack.floor.child.pid!;
  const gateway: Target = { url: `${stack.dataPlane.ready.url}/v1/chat/completions`, headers: { authorization: `Bearer ${stack.key}` } };
  const floor: Target = { url: `${stack.floor.url}/v1/chat/completions`, headers: upstreamHeaders };
  // The JIT settles before anything is measured (the data plane warms up slowly: docs/benchmark.md).
  for (const mode of ["json", "stream"] as const) {
    await drive(gateway, bodyOf(mode), 16, Number(args.warmup));
    await drive(floor, bodyOf(mode), 16, 2);
  }

  const figures: CaseFigures[] = [];
  const profileDir = path.join(args.profiles, "data-plane");
  for (const { mode, concurrency } of cases) {
    const body = bodyOf(mode);
    await drive(floor, body, concurrency, 2);
    const floorCpu = cpuSeconds(floorPid);
    const floorRun = await drive(floor, body, concurrency, seconds);
    const floorMicros = ((cpuSeconds(floorPid) - floorCpu) * 1e6) / floorRun.ok;

    await drive(gateway, body, concurrency, 2);
    const before = new Set(existsSync(profileDir) ? readdirSync(profileDir) : []);
    const [dataCpu, controlCpu] = [cpuSeconds(dataPlanePid), cpuSeconds(controlPlanePid)];
    process.kill(dataPlanePid, "SIGUSR2");
    const run = await drive(gateway, body, concurrency, seconds);
    process.kill(dataPlanePid, "SIGUSR2");
    const [dataUsed, controlUsed] = [cpuSeconds(dataPlanePid) - dataCpu, cpuSeconds(controlPlanePid) - controlCpu];
    let file: string | undefined;
    for (let waited = 0; !file && waited < 100; waited++) {
      file = (existsSync(profileDir) ? readdirSync(profileDir) : []).find((name) => !before.has(name));
      if (!file) await sleep(100);
    }
    if (!file) throw new Error("the data plane wrote no profile");
    await sleep(500); // written in one call, but let it land
    const { parts, busyMicros } = partsOf(JSON.parse(readFileSync(path.join(profileDir, file), "utf8")) as Profile);
    const perRequest = (micros: number) => micros / run.ok;
    const cpuPerRequest = perRequest(dataUsed * 1e6);
    const shown = Object.fromEntries(PARTS.map((part) => [part, (cpuPerRequest * parts.get(part)!) / busyMicros])) as CaseFigures["parts"];
    figures.push({
      mode,
      concurrency,
      floor: { requests: floorRun.ok, cpuMicrosPerRequest: floorMicros },
      dataPlane: {
        requests: run.ok,
        failed: run.failed,
        cpuMicrosPerRequest: cpuPerRequest,
      },
      controlPlaneMicrosPerRequest: perRequest(controlUsed * 1e6),
      parts: shown,
    });
    console.log(
      `${mode} c=${concurrency}: floor ${floorMicros.toFixed(0)} µs/req; data plane ${perRequest(dataUsed * 1e6).toFixed(0)} µs/req ` +
        `(${run.ok} requests, ${run.failed} failed), control plane ${perRequest(controlUsed * 1e6).toFixed(0)} µs/req`,
    );
  }

  // One table: a row per part, a column per case (µs per request).
  const header = `| part | ${figures.map((f) => `${f.mode} c=${f.concurrency}`).join(" | ")} |`;
  const rule = `|---|${figures.map(() => "--:").join("|")}|`;
  const row = (name: string, value: (f: CaseFigures) => number) => `| ${name} | ${figures.map((f) => value(f).toFixed(1)).join(" | ")} |`;
  const ordered = [...PARTS].sort((a, b) => figures[0]!.parts[b] - figures[0]!.parts[a]);
  console.log(
    [
      "",
      header,
      rule,
      ...ordered.map((part) => row(part, (f) => f.parts[part])),
      row("**data plane, in all**", (f) => f.dataPlane.cpuMicrosPerRequest),
      row("floor (undici pass-through), in all", (f) => f.floor.cpuMicrosPerRequest),
      row("control plane", (f) => f.controlPlaneMicrosPerRequest),
    ].join("\n"),
  );
  mkdirSync(path.dirname(args.out), { recursive: true });
  writeFileSync(
    args.out,
    `${JSON.stringify({ date: new Date().toISOString(), seconds, postgres: args.postgres, cases: figures }, null, 2)}\n`,
  );
  console.log(`\nwritten: ${args.out}; profiles in ${profileDir}`);
} finally {
  await stack.stop();
}
