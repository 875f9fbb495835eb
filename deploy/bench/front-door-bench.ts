// What unauthenticated traffic costs the callers with a key (issue 33, items 1 and 3), on the bench
// stack (one data plane as production runs it):
//   bodies: a keyed request's latency, quiet and while 20 unauthenticated 10 MiB JSON bodies
//           (`[{},{},...]`) arrive at once at POST /nope, /v1/nope and /health;
//   keys:   10,000 made-up, well-formed keys sent from one address at 1,000 a second whatever the
//           answers (open loop: a data plane that answers faster gets no more of them): the ValidateKey
//           calls the data plane made (its gateway_control_plane_call_seconds count) and a valid
//           key's latency (cached, as a client in use has it), quiet and meanwhile.
// The keyed request is GET /v1/models/auto: auth and a small answer, no upstream.
//
// The gateway's processes are pinned to CPU 0 and this script and the mock to CPU 1 where taskset
// exists, as the other benches do (--no-pin: left to the kernel). The data plane runs as production
// runs it (its bundle, a 256 MB heap), or with --tsx as `pnpm start` does (no heap cap).
//
//   tsx deploy/bench/front-door-bench.ts [--case bodies,keys] [--no-pin] [--tsx] [--out FILE]
import http from "node:http";
import os from "node:os";
import { parseArgs } from "node:util";
import { readMetric } from "../../services/data-plane/test/support/metrics";
import { BENCH_POSTGRES_URL, BENCH_REDIS_URL, BenchStack } from "./bench-stack";
import { percentiles } from "./load";
import { pin, tasksetAvailable } from "./process-stats";
import { writeResults } from "./results-file";

const { values: args } = parseArgs({
  options: {
    case: { type: "string", default: "bodies,keys" },
    out: { type: "string" },
    "no-pin": { type: "boolean", default: false },
    tsx: { type: "boolean", default: false },
  },
});
const cases = new Set(args.case.split(","));
const pinned = !args["no-pin"] && tasksetAvailable() && os.cpus().length >= 2;

const BODIES = 20;
const BODY = Buffer.from(`[${"{},".repeat(Math.floor((10 * 1024 * 1024 - 3) / 3))}{}]`);
const BODY_PATHS = ["/nope", "/v1/nope", "/health"];
const KEYS = 10_000;
const KEYS_PER_SECOND = 1000;
/** At most this many made-up keys unanswered: past it the schedule waits (reported as the run's length). */
const KEYS_IN_FLIGHT = 500;

const stack = new BenchStack({
  backend: "postgresql",
  postgresUrl: BENCH_POSTGRES_URL,
  redisUrl: BENCH_REDIS_URL,
  gatewayCpus: pinned ? "0" : undefined,
  loadCpus: pinned ? "1" : undefined,
  dataPlaneRuntime: args.tsx ? "tsx" : "bundle",
});

/** A keyed request's latency in ms, or undefined when it failed (a data plane out of heap no longer answers). */
const keyedMs = async (): Promise<number | undefined> => {
  const started = performance.now();
  try {
    const response = await fetch(`${stack.dataPlane.ready.url}/v1/models/auto`, { headers: { authorization: `Bearer ${stack.key}` } });
    await response.arrayBuffer();
    if (response.status === 200) return performance.now() - started;
  } catch {}
  await new Promise((resolve) => setTimeout(resolve, 100));
  return undefined;
};

/** Keyed requests one after another while `work` lasts (at least one). */
async function keyedDuring(work: Promise<unknown>): Promise<(number | undefined)[]> {
  let done = false;
  void work.finally(() => {
    done = true;
  });
  const latencies: (number | undefined)[] = [];
  while (!done || latencies.length === 0) latencies.push(await keyedMs());
  await work;
  return latencies;
}

const summary = (samples: (number | undefined)[]) => {
  const latencies = samples.filter((sample) => sample !== undefined);
  const { p50, p99 } = percentiles(latencies);
  return {
    n: latencies.length,
    failed: samples.length - latencies.length,
    p50_ms: round(p50),
    p99_ms: round(p99),
    max_ms: round(Math.max(...latencies)),
  };
};
const round = (value: number) => Math.round(value * 100) / 100;
const show = (label: string, figures: ReturnType<typeof summary>) =>
  console.log(
    `${label.padEnd(44)} p50 ${String(figures.p50_ms).padStart(8)} ms  p99 ${String(figures.p99_ms).padStart(8)} ms  max ${String(figures.max_ms).padStart(8)} ms  (n=${figures.n}, failed ${figures.failed})`,
  );

async function quiet(): Promise<ReturnType<typeof summary>> {
  const latencies: (number | undefined)[] = [];
  for (let index = 0; index < 200; index++) latencies.push(await keyedMs());
  return summary(latencies);
}

/** One unauthenticated body, at full speed: its answer (status or error) once it is both sent whole and answered. */
function sendBody(path: string, agent: http.Agent): Promise<number | string> {
  const { hostname, port } = new URL(stack.dataPlane.ready.url!);
  return new Promise((resolve) => {
    let answer: number | string | undefined;
    let sent = false;
    const settle = () => {
      if (answer !== undefined && (sent || typeof answer === "string")) resolve(answer);
    };
    const request = http.request(
      { host: hostname, port, method: "POST", path, agent, headers: { "content-type": "application/json", "content-length": BODY.length } },
      (response) => {
        response.resume();
        response.on("end", () => {
          answer = response.statusCode ?? 0;
          settle();
        });
      },
    );
    request.on("finish", () => {
      sent = true;
      settle();
    });
    request.on("error", (error) => {
      answer ??= error.message;
      sent = true;
      settle();
    });
    request.end(BODY);
  });
}

async function bodies() {
  const before = await quiet();
  const agent = new http.Agent({ keepAlive: false, maxSockets: BODIES });
  const started = performance.now();
  // The window: until every body was both sent whole and answered (the answer comes before the body is read).
  const flood = Promise.all(Array.from({ length: BODIES }, (_, index) => sendBody(BODY_PATHS[index % BODY_PATHS.length]!, agent)));
  const during = summary(await keyedDuring(flood));
  const answers = await flood;
  agent.destroy();
  const floodSeconds = round((performance.now() - started) / 1000);
  show("bodies: keyed request, quiet", before);
  show(`bodies: keyed request, ${BODIES} x 10 MiB unauthenticated`, during);
  console.log(`bodies: the ${BODIES} bodies sent and answered in ${floodSeconds} s: ${[...new Set(answers)].join(", ")}`);
  return { quiet: before, during, flood_seconds: floodSeconds, answers: [...new Set(answers)] };
}

const validateKeyCalls = () =>
  readMetric(stack.dataPlane.ready.metrics!, "gateway_control_plane_call_seconds_count", { method: "ValidateKey" });

async function keys() {
  const before = await quiet();
  const callsBefore = await validateKeyCalls();
  const statuses = new Map<number | string, number>();
  const started = performance.now();
  const send = async (index: number) => {
    const key = `sk_nobody_${String(index).padStart(43, "0")}`;
    const outcome = await fetch(`${stack.dataPlane.ready.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: '{"model":"auto","messages":[{"role":"user","content":"hello"}]}',
    }).then(
      async (response) => {
        await response.arrayBuffer();
        return response.status;
      },
      () => "failed",
    );
    statuses.set(outcome, (statuses.get(outcome) ?? 0) + 1);
  };
  const flood = (async () => {
    const inFlight = new Set<Promise<void>>();
    for (let sent = 0; sent < KEYS; ) {
      const due = Math.min(KEYS, Math.floor(((performance.now() - started) / 1000) * KEYS_PER_SECOND));
      for (; sent < due && inFlight.size < KEYS_IN_FLIGHT; sent++) {
        const request = send(sent).finally(() => inFlight.delete(request));
        inFlight.add(request);
      }
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await Promise.all(inFlight);
  })();
  const during = summary(await keyedDuring(flood));
  const floodSeconds = round((performance.now() - started) / 1000);
  const calls = (await validateKeyCalls()) - callsBefore;
  show("keys: valid key, quiet", before);
  show(`keys: valid key, ${KEYS} made-up keys from one address`, during);
  console.log(
    `keys: ${KEYS} made-up keys (${KEYS_PER_SECOND}/s asked) in ${floodSeconds} s cost ${calls} ValidateKey calls; answers ${JSON.stringify(Object.fromEntries(statuses))}`,
  );
  return { quiet: before, during, flood_seconds: floodSeconds, validate_key_calls: calls, answers: Object.fromEntries(statuses) };
}

try {
  await stack.start();
  await stack.floor.stop(); // not measured here
  if (pinned) pin(process.pid, "1");
  for (let index = 0; index < 50; index++) await keyedMs(); // warm: the key cached, the code compiled
  const output: Record<string, unknown> = { pinned, data_plane: args.tsx ? "tsx" : "bundle" };
  if (cases.has("bodies")) output.bodies = await bodies();
  if (cases.has("keys")) output.keys = await keys();
  if (args.out) writeResults(args.out, output);
} finally {
  await stack.stop();
}
