// What many slow streams cost one data plane (issue 22): --streams (10,000) streamed chat
// completions open at once, each lasting about --seconds (the mock's default script spaces its
// events with chunkDelayMs), through the gateway and then, for comparison, through the undici
// pass-through floor. The streams are opened by a client in a child process of its own (this file
// with --client: a node:http Agent without socket limits, keep-alive off), ramped over --ramp
// seconds so the accept queue is not the limit. Once every stream has delivered its first content
// event (or --open-wait seconds have passed), the target's RSS (sampled) and CPU seconds are read
// from /proc over a --plateau window: RSS per open stream = (plateau RSS − idle RSS) / open streams,
// CPU per open stream per second (also net of the idle target's own CPU, read over 5 s before), and
// the same per held client connection (open or still waiting). Then the streams are left to finish
// (those still open past their time are cut) and, for the gateway, every stream must end in a settle
// or a release: no hold may stay active, and the billed requests are counted (as gateway-bench.ts's
// billingCheck). Both the data plane and the floor open at most 256 connections to one upstream
// (their undici pools): past 256 streams, the rest wait (docs/benchmark.md, "10,000 slow streams").
//
//   tsx deploy/bench/slow-streams-bench.ts --postgres
//   options: --streams 10000 --seconds 60 --ramp 20 --plateau 15 --open-wait 40 --targets gateway,floor
//            --model <id> --out <file> --gateway-cpus 0 --load-cpus 1 --no-pin
import { type ChildProcess, fork } from "node:child_process";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { repositoryRoot } from "../local/service-process";
import { BENCH_POSTGRES_URL, BENCH_REDIS_URL, BenchStack, upstreamHeaders } from "./bench-stack";
import { chatBody, hasContent, type Target } from "./load";
import { cpuSeconds, pin, rssBytes, tasksetAvailable } from "./process-stats";
import { writeResults } from "./results-file";

const { values: args } = parseArgs({
  options: {
    client: { type: "boolean", default: false },
    streams: { type: "string", default: "10000" },
    seconds: { type: "string", default: "60" },
    ramp: { type: "string", default: "20" },
    plateau: { type: "string", default: "15" },
    "open-wait": { type: "string", default: "40" },
    targets: { type: "string", default: "gateway,floor" },
    model: { type: "string", default: "gpt-4.1-mini" },
    postgres: { type: "boolean", default: false },
    out: { type: "string", default: path.join(repositoryRoot, "deploy/bench/results/latest-slow-streams.json") },
    "gateway-cpus": { type: "string", default: "0" },
    "load-cpus": { type: "string", default: "1" },
    "no-pin": { type: "boolean", default: false },
  },
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const fixed = (value: number, digits = 2) => (Number.isFinite(value) ? value.toFixed(digits) : "-");
const mb = (bytes: number) => bytes / 1024 / 1024;

/** How far the client's streams got; sent by the client process to the benchmark. */
interface StreamCounts {
  started: number;
  /** Response headers received (the gateway sends them with a keep-alive comment to a stream still waiting upstream). */
  headers: number;
  /** First content event received: the stream is open end to end. */
  open: number;
  /** Ended with status 200 and `data: [DONE]`. */
  completed: number;
  /** Another status, an error, an end without [DONE], or cut by the benchmark. */
  failed: number;
  /** Among the failures: connection errors by code (EMFILE, ECONNRESET, ...). */
  errors: Record<string, number>;
}

interface ClientOrder {
  target: Target;
  body: string;
  streams: number;
  rampSeconds: number;
}

// ---- the client process -------------------------------------------------------------------

function openStream(order: ClientOrder, agent: http.Agent, counts: StreamCounts, live: Set<http.ClientRequest>): void {
  const url = new URL(order.target.url);
  let open = false;
  let settled = false;
  let pending = "";
  let tail = "";
  const settle = (ok: boolean, code?: string) => {
    if (settled) return;
    settled = true;
    live.delete(request);
    if (open) counts.open--;
    if (ok) counts.completed++;
    else {
      counts.failed++;
      if (code) counts.errors[code] = (counts.errors[code] ?? 0) + 1;
    }
  };
  const request = http.request(
    {
      host: url.hostname,
      port: url.port,
      path: url.pathname,
      method: "POST",
      agent,
      headers: { "content-type": "application/json", ...order.target.headers },
    },
    (response) => {
      counts.headers++;
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => {
        tail = (tail + chunk).slice(-64);
        if (open) return;
        pending += chunk;
        const lines = pending.split("\n");
        pending = lines.pop() ?? "";
        if (lines.some(hasContent)) {
          open = true;
          counts.open++;
          pending = "";
        }
      });
      response.on("end", () => settle(response.statusCode === 200 && tail.includes("data: [DONE]"), `status ${response.statusCode}`));
      response.on("error", (error: NodeJS.ErrnoException) => settle(false, error.code ?? error.message));
      response.on("close", () => settle(false, "closed"));
    },
  );
  request.on("error", (error: NodeJS.ErrnoException) => settle(false, error.code ?? error.message));
  live.add(request);
  counts.started++;
  request.end(order.body);
}

/** The client: opens the streams ramped, reports its counts every 500 ms, cuts what is left on "cut". */
function runClient(): void {
  const counts: StreamCounts = { started: 0, headers: 0, open: 0, completed: 0, failed: 0, errors: {} };
  const live = new Set<http.ClientRequest>();
  const agent = new http.Agent({ keepAlive: false, maxSockets: Number.POSITIVE_INFINITY });
  const report = () => process.send!({ type: "counts", counts });
  const reporter = setInterval(report, 500);
  process.on("message", (message: { type: string; order?: ClientOrder }) => {
    if (message.type === "start") {
      const order = message.order!;
      const startedAt = performance.now();
      const ramp = setInterval(() => {
        const due = Math.min(order.streams, Math.ceil(((performance.now() - startedAt) / 1000 / order.rampSeconds) * order.streams));
        while (counts.started < due) openStream(order, agent, counts, live);
        if (counts.started >= order.streams) clearInterval(ramp);
      }, 10);
    } else if (message.type === "cut") {
      for (const request of [...live]) request.destroy(new Error("cut by the benchmark"));
      clearInterval(reporter);
      // The cut requests' error events come on a later turn: count them before the last report.
      setTimeout(() => {
        report();
        process.disconnect();
      }, 500);
    }
  });
}

// ---- the benchmark ------------------------------------------------------------------------

const streams = Number(args.streams);
const streamSeconds = Number(args.seconds);
const rampSeconds = Number(args.ramp);
const plateauSeconds = Number(args.plateau);
const openWaitSeconds = Number(args["open-wait"]);
const pinned = !args["no-pin"] && tasksetAvailable() && os.cpus().length >= 2;
type TargetName = "gateway" | "floor";

interface TargetResult {
  target: TargetName;
  streams: number;
  /** Seconds from the first stream started until all were open (or the wait gave up). */
  openAfterSeconds: number;
  countsAtPlateauStart: StreamCounts;
  countsAtPlateauEnd: StreamCounts;
  idleRssBytes: number;
  /** Mean and highest RSS sampled every 250 ms over the plateau. */
  plateauRssBytes: number;
  plateauPeakRssBytes: number;
  plateauSeconds: number;
  plateauCpuSeconds: number;
  /** Streams open over the plateau (the mean of its start and end). */
  openStreams: number;
  rssPerOpenStreamBytes: number;
  /** CPU seconds per second the idle target used before the streams (its timers, reports, metrics). */
  idleCores: number;
  /** CPU µs per open stream per second of the plateau. */
  cpuMicrosPerStreamSecond: number;
  /** The same with the idle target's own CPU taken off. */
  netCpuMicrosPerStreamSecond: number;
  /** Client connections held over the plateau (started minus ended): open streams plus those still waiting. */
  heldConnections: number;
  rssPerHeldConnectionBytes: number;
  final: StreamCounts;
  /** Streams still open when the benchmark cut them (their time plus a margin was over). */
  cut: number;
}

function startClient(): Promise<{ child: ChildProcess; counts: () => StreamCounts; done: Promise<StreamCounts> }> {
  const child = fork(fileURLToPath(import.meta.url), ["--client"], {
    execArgv: ["--import", "tsx"],
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  let latest: StreamCounts = { started: 0, headers: 0, open: 0, completed: 0, failed: 0, errors: {} };
  child.on("message", (message: { type: string; counts: StreamCounts }) => {
    if (message.type === "counts") latest = message.counts;
  });
  const done = new Promise<StreamCounts>((resolve) => child.once("exit", () => resolve(latest)));
  return new Promise((resolve, reject) => {
    child.once("spawn", () => {
      if (pinned) pin(child.pid!, args["load-cpus"]);
      resolve({ child, counts: () => latest, done });
    });
    child.once("error", reject);
  });
}

/** Waits until `until` holds of the client's counts, or `seconds` pass; the seconds waited. */
async function waitFor(counts: () => StreamCounts, until: (counts: StreamCounts) => boolean, seconds: number): Promise<number> {
  const startedAt = performance.now();
  while (performance.now() - startedAt < seconds * 1000 && !until(counts())) await sleep(250);
  return (performance.now() - startedAt) / 1000;
}

async function measureTarget(stack: BenchStack, name: TargetName, body: string): Promise<TargetResult> {
  const pid = name === "gateway" ? stack.dataPlane.child.pid! : stack.floor.child.pid!;
  const target: Target =
    name === "gateway"
      ? { url: `${stack.dataPlane.ready.url}/v1/chat/completions`, headers: { authorization: `Bearer ${stack.key}` } }
      : { url: `${stack.floor.url}/v1/chat/completions`, headers: upstreamHeaders };
  const idleCpuBefore = cpuSeconds(pid);
  const idleStartedAt = performance.now();
  const idleRssBytes = await meanRss(pid, 5);
  const idleCores = (cpuSeconds(pid) - idleCpuBefore) / ((performance.now() - idleStartedAt) / 1000);
  const client = await startClient();
  client.child.send({ type: "start", order: { target, body, streams, rampSeconds } satisfies ClientOrder });
  const startedAt = performance.now();
  const allOpen = (c: StreamCounts) => c.started === streams && c.open + c.completed + c.failed >= streams;
  const openAfterSeconds = await waitFor(client.counts, allOpen, rampSeconds + openWaitSeconds);
  console.error(`  ${name}: ${JSON.stringify(client.counts())} after ${fixed(openAfterSeconds, 1)} s`);
  const countsAtPlateauStart = structuredClone(client.counts());
  const cpuBefore = cpuSeconds(pid);
  const plateauStartedAt = performance.now();
  const { mean, peak } = await sampleRss(pid, plateauSeconds);
  const plateauWall = (performance.now() - plateauStartedAt) / 1000;
  const plateauCpuSeconds = cpuSeconds(pid) - cpuBefore;
  const countsAtPlateauEnd = structuredClone(client.counts());
  const openStreams = (countsAtPlateauStart.open + countsAtPlateauEnd.open) / 2;
  const held = (c: StreamCounts) => c.started - c.completed - c.failed;
  const heldConnections = (held(countsAtPlateauStart) + held(countsAtPlateauEnd)) / 2;
  console.error(
    `  ${name}: plateau ${fixed(mb(mean), 1)} MB RSS (idle ${fixed(mb(idleRssBytes), 1)}), ${fixed(plateauCpuSeconds)} CPU s, ${JSON.stringify(countsAtPlateauEnd)}`,
  );
  const finishBy = streamSeconds + rampSeconds + 30 - (performance.now() - startedAt) / 1000;
  await waitFor(client.counts, (c) => c.completed + c.failed >= streams, Math.max(0, finishBy));
  const cut = held(client.counts());
  client.child.send({ type: "cut" });
  const final = await client.done;
  console.error(`  ${name}: final ${JSON.stringify(final)}, ${cut} cut`);
  return {
    target: name,
    streams,
    openAfterSeconds,
    countsAtPlateauStart,
    countsAtPlateauEnd,
    idleRssBytes,
    plateauRssBytes: mean,
    plateauPeakRssBytes: peak,
    plateauSeconds: plateauWall,
    plateauCpuSeconds,
    openStreams,
    rssPerOpenStreamBytes: (mean - idleRssBytes) / openStreams,
    idleCores,
    cpuMicrosPerStreamSecond: (1e6 * plateauCpuSeconds) / plateauWall / openStreams,
    netCpuMicrosPerStreamSecond: (1e6 * (plateauCpuSeconds / plateauWall - idleCores)) / openStreams,
    heldConnections,
    rssPerHeldConnectionBytes: (mean - idleRssBytes) / heldConnections,
    final,
    cut,
  };
}

async function sampleRss(pid: number, seconds: number): Promise<{ mean: number; peak: number }> {
  const samples: number[] = [];
  const until = performance.now() + seconds * 1000;
  while (performance.now() < until) {
    samples.push(rssBytes(pid));
    await sleep(250);
  }
  return { mean: samples.reduce((sum, value) => sum + value, 0) / samples.length, peak: Math.max(...samples) };
}

const meanRss = async (pid: number, seconds: number) => (await sampleRss(pid, seconds)).mean;

/** The chunk delay that makes one stream last about `seconds`: the mock's default answer is this many events. */
async function chunkDelayFor(stack: BenchStack, body: string, seconds: number): Promise<{ events: number; chunkDelayMs: number }> {
  const response = await fetch(`${stack.mockUrl}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", ...upstreamHeaders },
    body,
  });
  const events = (await response.text()).split("\n").filter((line) => line.startsWith("data:")).length;
  return { events, chunkDelayMs: Math.round((seconds * 1000) / events) };
}

interface Billing {
  activeHoldsAfterDrain: number;
  billedRequests: number;
  balanceUsd: string;
}

/** As gateway-bench.ts's billingCheck: every stream ends in a settle or a release, so the active holds drain to none. */
async function billingCheck(stack: BenchStack): Promise<Billing> {
  let active = -1;
  for (let attempt = 0; attempt < 150; attempt++) {
    active = (await stack.admin<{ data: unknown[] }>("GET", `/admin/projects/${stack.projectId}/holds?status=active&limit=10000`)).data
      .length;
    if (active === 0) break;
    await sleep(200);
  }
  const usage = await stack.admin<{ data: { requests?: number }[] }>("GET", `/admin/projects/${stack.projectId}/usage`);
  const balance = await stack.admin<{ balance: { usd: string } }>("GET", `/admin/projects/${stack.projectId}/balance`);
  return {
    activeHoldsAfterDrain: active,
    billedRequests: usage.data.reduce((sum, row) => sum + Number(row.requests ?? 0), 0),
    balanceUsd: balance.balance.usd,
  };
}

function table(results: TargetResult[]): string {
  const header =
    "| target | streams | open at plateau | held conns | idle RSS MB | plateau RSS MB | KB per open stream | KB per held conn | CPU µs per stream-second (net of idle) | completed | failed | cut |";
  const rows = results.map((r) =>
    [
      r.target,
      r.streams,
      fixed(r.openStreams, 0),
      fixed(r.heldConnections, 0),
      fixed(mb(r.idleRssBytes), 1),
      fixed(mb(r.plateauRssBytes), 1),
      fixed(r.rssPerOpenStreamBytes / 1024, 1),
      fixed(r.rssPerHeldConnectionBytes / 1024, 1),
      `${fixed(r.cpuMicrosPerStreamSecond, 1)} (${fixed(r.netCpuMicrosPerStreamSecond, 1)})`,
      r.final.completed,
      r.final.failed,
      r.cut,
    ].join(" | "),
  );
  return [header, `|${"---|".repeat(12)}`, ...rows.map((row) => `| ${row} |`)].join("\n");
}

async function main(): Promise<void> {
  if (pinned) pin(process.pid, args["load-cpus"]);
  const targets = args.targets.split(",") as TargetName[];
  console.error(
    `slow streams: ${streams} streams of ~${streamSeconds} s, ramp ${rampSeconds} s, plateau ${plateauSeconds} s, ${args.postgres ? "PostgreSQL + Redis" : "PGlite"}, ` +
      `${pinned ? `gateway + floor on CPU ${args["gateway-cpus"]}, mock + client on CPU ${args["load-cpus"]}` : "not pinned"}`,
  );
  const stack = new BenchStack({
    backend: args.postgres ? "postgresql" : "pglite",
    postgresUrl: BENCH_POSTGRES_URL,
    redisUrl: BENCH_REDIS_URL,
    gatewayCpus: pinned ? args["gateway-cpus"] : undefined,
    loadCpus: pinned ? args["load-cpus"] : undefined,
  });
  try {
    await stack.start();
    const body = chatBody(args.model, "stream");
    const { events, chunkDelayMs } = await chunkDelayFor(stack, body, streamSeconds);
    await stack.mockDefaultScript({ chunkDelayMs });
    console.error(`  the mock answers ${events} events, ${chunkDelayMs} ms apart`);
    const loadAverageBefore = os.loadavg();
    const results: TargetResult[] = [];
    let billing: Billing | undefined;
    /** The data plane's end, if it did not survive the streams: its exit and the last of what it printed. */
    let dataPlaneDied: { code: number | null; signal: string | null; outputTail: string } | undefined;
    for (const name of targets) {
      results.push(await measureTarget(stack, name, body));
      if (name === "gateway") {
        billing = await billingCheck(stack);
        const { child } = stack.dataPlane;
        if (child.exitCode !== null || child.signalCode !== null) {
          dataPlaneDied = { code: child.exitCode, signal: child.signalCode, outputTail: stack.dataPlane.output().slice(-3000) };
          console.error(`  the data plane exited (code ${child.exitCode}, signal ${child.signalCode}):\n${dataPlaneDied.outputTail}`);
        }
      }
      await sleep(5000);
    }
    await stack.mockDefaultScript(undefined);
    console.log(`\n${table(results)}\n`);
    if (billing)
      console.log(
        `billing: ${billing.billedRequests} requests billed, ${billing.activeHoldsAfterDrain} holds still active, balance $${billing.balanceUsd} of $1000000.00`,
      );
    const output = {
      date: new Date().toISOString(),
      command: `tsx deploy/bench/slow-streams-bench.ts ${process.argv.slice(2).join(" ")}`.trim(),
      machine: {
        cpus: os.cpus().length,
        cpuModel: os.cpus()[0]?.model,
        node: process.version,
        loadAverageBefore,
        loadAverageAfter: os.loadavg(),
      },
      options: { streams, streamSeconds, rampSeconds, plateauSeconds, openWaitSeconds, model: args.model, events, chunkDelayMs, pinned },
      billing,
      ...(dataPlaneDied ? { dataPlaneDied } : {}),
      results,
    };
    writeResults(args.out, output);
  } finally {
    await stack.stop();
  }
}

if (args.client) runClient();
else await main();
