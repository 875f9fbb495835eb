// Where the data plane allocates, per request (issue 22: garbage collection is 10-15% of its CPU): one stack
// (PostgreSQL + Redis with --postgres, the data plane through tsx so that files name the parts), warmed up; then
// per case V8's sampling heap profiler (heap-sampler.mjs, toggled by SIGUSR2) over exactly one load window.
// Prints the bytes allocated per request by part (profile-parts.ts's parts: each allocation goes to the first
// frame from the allocating one up that belongs to a part) and the functions that allocate the most.
//
//   tsx deploy/bench/alloc-profile.ts [--cases json:64,stream:64] [--seconds 10] [--postgres] [--out <file>]
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { repositoryRoot } from "../local/service-process";
import { BENCH_POSTGRES_URL, BENCH_REDIS_URL, BenchStack } from "./bench-stack";
import { chatBody, drive, type Target } from "./load";
import { partOfFrame } from "./profile-parts";

const { values: args } = parseArgs({
  options: {
    cases: { type: "string", default: "json:64,stream:64" },
    seconds: { type: "string", default: "10" },
    postgres: { type: "boolean", default: false },
    model: { type: "string", default: "gpt-4.1-mini" },
    top: { type: "string", default: "15" },
    out: { type: "string", default: path.join(repositoryRoot, "deploy/bench/results/alloc-profile.json") },
  },
});

interface HeapNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  id: number;
  children: HeapNode[];
}

const profileDir = mkdtempSync(path.join(os.tmpdir(), "gateway-heap-profile-"));
const stack = new BenchStack({
  backend: args.postgres ? "postgresql" : "pglite",
  postgresUrl: BENCH_POSTGRES_URL,
  redisUrl: BENCH_REDIS_URL,
  gatewayCpus: undefined,
  loadCpus: undefined,
  dataPlaneRuntime: "tsx",
  dataPlaneEnv: {
    NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ""} --import ${path.join(repositoryRoot, "deploy/bench/heap-sampler.mjs")}`.trim(),
    BENCH_HEAP_PROFILE_DIR: profileDir,
  },
});
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Bytes by part and by function (self), walking the allocation tree with each node's part inherited down. */
function attribute(head: HeapNode): { parts: Map<string, number>; functions: Map<string, number> } {
  const parts = new Map<string, number>();
  const functions = new Map<string, number>();
  const visit = (node: HeapNode, inherited: string | undefined, path: string[]) => {
    const { functionName, url, lineNumber } = node.callFrame;
    const part = partOfFrame(url) ?? inherited;
    const trail = [...path, url];
    if (node.selfSize > 0) {
      // Node's own frames (streams, http) go to the part that called them, as in the CPU table.
      const name = part ?? (trail.some((frame) => /node:_http|node:net/.test(frame)) ? "Node HTTP" : "Node internals");
      parts.set(name, (parts.get(name) ?? 0) + node.selfSize);
      const where = `${functionName || "(anonymous)"}  ${url.replace(/^.*\/(services|proto|node_modules)\//, "$1/")}:${lineNumber + 1}`;
      functions.set(where, (functions.get(where) ?? 0) + node.selfSize);
    }
    for (const child of node.children) visit(child, part, trail.length > 12 ? trail.slice(-12) : trail);
  };
  visit(head, undefined, []);
  return { parts, functions };
}

try {
  await stack.start();
  const gateway: Target = { url: `${stack.dataPlane.ready.url}/v1/chat/completions`, headers: { authorization: `Bearer ${stack.key}` } };
  for (const mode of ["json", "stream"] as const) await drive(gateway, chatBody(args.model, mode), 16, 10);
  const results = [];
  for (const spec of args.cases.split(",")) {
    const [mode, concurrency] = [spec.split(":")[0] as "json" | "stream", Number(spec.split(":")[1])];
    const before = new Set(readdirSync(profileDir));
    process.kill(stack.dataPlane.child.pid!, "SIGUSR2");
    const run = await drive(gateway, chatBody(args.model, mode), concurrency, Number(args.seconds));
    process.kill(stack.dataPlane.child.pid!, "SIGUSR2");
    let file: string | undefined;
    for (let waited = 0; !file && waited < 100; waited++) {
      file = readdirSync(profileDir).find((name) => !before.has(name));
      if (!file) await sleep(100);
    }
    if (!file || !existsSync(path.join(profileDir, file))) throw new Error("the data plane wrote no heap profile");
    await sleep(500);
    const { head } = JSON.parse(readFileSync(path.join(profileDir, file), "utf8")) as { head: HeapNode };
    const { parts, functions } = attribute(head);
    const requests = run.ok + run.failed;
    const perRequest = (bytes: number) => bytes / requests;
    const total = [...parts.values()].reduce((sum, bytes) => sum + bytes, 0);
    console.log(
      `\n${mode} c=${concurrency}: ${requests} requests, ${(perRequest(total) / 1024).toFixed(1)} KiB allocated per request (sampled)`,
    );
    for (const [part, bytes] of [...parts].sort((a, b) => b[1] - a[1]))
      console.log(`  ${(perRequest(bytes) / 1024).toFixed(2).padStart(7)} KiB  ${part}`);
    console.log("  functions:");
    const topFunctions = [...functions].sort((a, b) => b[1] - a[1]).slice(0, Number(args.top));
    for (const [where, bytes] of topFunctions) console.log(`  ${(perRequest(bytes) / 1024).toFixed(2).padStart(7)} KiB  ${where}`);
    results.push({
      mode,
      concurrency,
      requests,
      bytesPerRequest: perRequest(total),
      parts: Object.fromEntries([...parts].map(([part, bytes]) => [part, perRequest(bytes)])),
      functions: Object.fromEntries(topFunctions.map(([where, bytes]) => [where, perRequest(bytes)])),
    });
  }
  mkdirSync(path.dirname(args.out), { recursive: true });
  writeFileSync(
    args.out,
    `${JSON.stringify({ date: new Date().toISOString(), command: `tsx deploy/bench/alloc-profile.ts ${process.argv.slice(2).join(" ")}`.trim(), node: process.version, results }, null, 2)}\n`,
  );
  console.log(`results: ${path.relative(process.cwd(), args.out)}`);
} finally {
  await stack.stop();
  rmSync(profileDir, { recursive: true, force: true });
}
