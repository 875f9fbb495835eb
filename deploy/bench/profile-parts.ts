// Attributes a data plane's CPU profile (.cpuprofile, as cpu-profiler.mjs writes it) to the parts of a
// request that issue 22 names: validation, routing, limit checks, lease and draw bookkeeping, metrics and
// logs, fastify and its hooks, undici, the response write, and the rest. Each sample goes to the first frame
// from the leaf up that belongs to a part: Node's own frames (sockets, streams, timers) go to the code that
// called them (a socket write under undici is undici's; under fastify's reply, the response write). V8 folds
// its builtins into their callers: JSON.parse and JSON.stringify are in the part that calls them.
//
//   tsx deploy/bench/profile-parts.ts <file.cpuprofile | directory>
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}
export interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export const PARTS = [
  "JSON (fastify's serializer and body parser)",
  "validation",
  "routing and catalogue",
  "key check",
  "limit checks",
  "lease and draw bookkeeping",
  "gRPC to the control plane",
  "metrics and logs",
  "tracing",
  "fastify and its hooks",
  "engine, dialects and adapters",
  "undici (upstream)",
  "response write (Node HTTP)",
  "Node internals (event loop, timers, HTTP parse)",
  "garbage collection",
  "V8 (program, compiler)",
] as const;
export type Part = (typeof PARTS)[number];

const PACKAGES: [RegExp, Part][] = [
  [/^undici$/, "undici (upstream)"],
  [/^(fast-json-stringify|secure-json-parse|json-schema-ref-resolver)$/, "JSON (fastify's serializer and body parser)"],
  [/^(ajv|ajv-formats|@fastify\/ajv-compiler|fast-uri|fast-deep-equal)$/, "validation"],
  [
    /^(fastify|find-my-way|avvio|light-my-request|@fastify\/.*|fast-querystring|abstract-logging|toad-cache|rfdc|process-warning|ret|safe-regex2)$/,
    "fastify and its hooks",
  ],
  [
    /^(pino|pino-std-serializers|sonic-boom|thread-stream|fast-redact|quick-format-unescaped|on-exit-leak-free|atomic-sleep|prom-client|tdigest|bintrees)$/,
    "metrics and logs",
  ],
  [
    /^(ioredis|redis-errors|redis-parser|denque|standard-as-callback|cluster-key-slot|lodash\.defaults|lodash\.isarguments)$/,
    "limit checks",
  ],
  [/^(@grpc\/.*|protobufjs|@protobufjs\/.*|long)$/, "gRPC to the control plane"],
  [/^@opentelemetry\/.*$/, "tracing"],
];

/** The repository's own files, by path under services/data-plane/src (or proto/src). */
const OWN: [RegExp, Part][] = [
  [/^auth\//, "key check"],
  [/^limits\/|^app\/plugins\/rate-limit/, "limit checks"],
  [/^billing\/|^control-plane\/|^app\/plugins\/request-billing|^project-rates/, "lease and draw bookkeeping"],
  [/^routing\/|^catalogue\//, "routing and catalogue"],
  [/^(metrics|gen-ai-metrics|metric-families|cumulative-counter|log-destination)\.ts|^app\/plugins\/request-record/, "metrics and logs"],
  [/^app\/plugins\/request-span|^tracing\//, "tracing"],
  [/^app\//, "fastify and its hooks"],
  [/^(dialects|providers|engine|upstream|routes)\/|^(call-coalescer|request-context|errors)\.ts/, "engine, dialects and adapters"],
];

/** Node's frames on a response's way out: a sample under them and under fastify or our code is the response write. */
const WRITE_PATH = /node:(_http_outgoing|_http_server|net|internal\/stream_base_commons|internal\/streams\/writable)/;

/** The part a frame of this script URL belongs to; undefined for Node's own and V8's frames. */
export function partOfFrame(url: string): Part | undefined {
  const packageName = /node_modules\/((?:@[^/]+\/)?[^/]+)\/(?!.*node_modules\/)/.exec(url)?.[1];
  if (packageName) return PACKAGES.find(([pattern]) => pattern.test(packageName))?.[1] ?? "engine, dialects and adapters";
  const own = /\/services\/data-plane\/src\/(.*)$/.exec(url)?.[1];
  if (own) return OWN.find(([pattern]) => pattern.test(own))?.[1] ?? "engine, dialects and adapters";
  if (/\/proto\/src\/tracing\//.test(url)) return "tracing";
  if (/\/proto\/src\//.test(url)) return "gRPC to the control plane";
  return undefined;
}

/** Self time (µs) by part, and the profile's busy time (idle left out). */
export function partsOf(profile: Profile): { parts: Map<Part, number>; busyMicros: number } {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const memo = new Map<number, Part>();
  const partOf = (leaf: number): Part => {
    const known = memo.get(leaf);
    if (known) return known;
    const frame = byId.get(leaf)!.callFrame;
    let part: Part | undefined;
    if (frame.functionName === "(garbage collector)") part = "garbage collection";
    else if (frame.functionName === "(program)") part = "V8 (program, compiler)";
    let writing = false;
    for (let id: number | undefined = leaf; part === undefined && id !== undefined; id = parent.get(id)) {
      const url = byId.get(id)!.callFrame.url;
      if (WRITE_PATH.test(url)) writing = true;
      const owner = partOfFrame(url);
      if (owner) part = writing && owner !== "undici (upstream)" ? "response write (Node HTTP)" : owner;
    }
    part ??= writing ? "response write (Node HTTP)" : "Node internals (event loop, timers, HTTP parse)";
    memo.set(leaf, part);
    return part;
  };
  const parts = new Map<Part, number>(PARTS.map((part) => [part, 0]));
  let busyMicros = 0;
  for (const [index, id] of profile.samples.entries()) {
    if (byId.get(id)!.callFrame.functionName === "(idle)") continue;
    const micros = profile.timeDeltas[index] ?? 0;
    busyMicros += micros;
    parts.set(partOf(id), parts.get(partOf(id))! + micros);
  }
  return { parts, busyMicros };
}

function main(): void {
  const target = process.argv[2];
  if (!target) throw new Error("usage: tsx deploy/bench/profile-parts.ts <file.cpuprofile | directory>");
  const files = statSync(target).isDirectory()
    ? readdirSync(target, { recursive: true, encoding: "utf8" })
        .filter((file) => file.endsWith(".cpuprofile"))
        .map((file) => path.join(target, file))
    : [target];
  for (const file of files) {
    const { parts, busyMicros } = partsOf(JSON.parse(readFileSync(file, "utf8")) as Profile);
    console.log(`\n${file}: ${(busyMicros / 1e6).toFixed(2)} s busy`);
    for (const [part, micros] of [...parts].sort((a, b) => b[1] - a[1]))
      console.log(`  ${((100 * micros) / busyMicros).toFixed(1).padStart(5)}%  ${part}`);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) main();
