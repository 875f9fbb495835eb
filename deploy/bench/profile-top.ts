// Summarises V8 CPU profiles (.cpuprofile, as `node --cpu-prof` and
// `gateway-bench.ts --cpu-prof <dir>` write them): the functions with the most
// self time, self time by package (or by file for the repository's own code), and
// the repository's own functions by inclusive time (with everything they call).
//
//   tsx deploy/bench/profile-top.ts <file.cpuprofile | directory> [--top 25]
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const { values, positionals } = parseArgs({ allowPositionals: true, options: { top: { type: "string", default: "25" } } });
const top = Number(values.top);

function files(target: string): string[] {
  if (!statSync(target).isDirectory()) return [target];
  return readdirSync(target, { recursive: true, encoding: "utf8" })
    .filter((file) => file.endsWith(".cpuprofile"))
    .map((file) => path.join(target, file));
}

/** "undici", "fastify", "@grpc/grpc-js", "node:internal", or the repository file. */
function owner(url: string): string {
  if (!url) return "(native / V8)";
  const packageMatch = /node_modules\/((?:@[^/]+\/)?[^/]+)\/(?!.*node_modules\/)/.exec(url);
  if (packageMatch) return packageMatch[1]!;
  if (url.startsWith("node:")) return url.replace(/^node:(internal\/)?/, "node:");
  const local = /\/(services|proto|deploy)\/(.*)$/.exec(url);
  return local ? `${local[1]}/${local[2]}` : url;
}

function summarise(file: string): void {
  const profile = JSON.parse(readFileSync(file, "utf8")) as Profile;
  const byNode = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfMicros = new Map<number, number>();
  for (const [index, id] of profile.samples.entries()) selfMicros.set(id, (selfMicros.get(id) ?? 0) + (profile.timeDeltas[index] ?? 0));
  const functions = new Map<string, number>();
  const owners = new Map<string, number>();
  let total = 0;
  let idle = 0;
  for (const [id, micros] of selfMicros) {
    const frame = byNode.get(id)!.callFrame;
    if (frame.functionName === "(idle)") {
      idle += micros;
      continue;
    }
    total += micros;
    // Line numbers of the repository's TypeScript are those of tsx's output, so they are left out.
    const line = frame.url && !/\/(services|proto|deploy)\//.test(frame.url) ? `:${frame.lineNumber + 1}` : "";
    const name = `${frame.functionName || "(anonymous)"}  ${owner(frame.url)}${line}`;
    functions.set(name, (functions.get(name) ?? 0) + micros);
    owners.set(owner(frame.url), (owners.get(owner(frame.url)) ?? 0) + micros);
  }
  // Inclusive time of the repository's own functions: every sample counts once for each distinct
  // such function on its stack.
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const inclusive = new Map<string, number>();
  for (const [id, micros] of selfMicros) {
    if (byNode.get(id)!.callFrame.functionName === "(idle)") continue;
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const frame = byNode.get(at)!.callFrame;
      if (/\/(services|proto)\//.test(frame.url)) seen.add(`${frame.functionName || "(anonymous)"}  ${owner(frame.url)}`);
    }
    for (const name of seen) inclusive.set(name, (inclusive.get(name) ?? 0) + micros);
  }
  const percent = (micros: number) => `${((100 * micros) / total).toFixed(1).padStart(5)}%`;
  console.log(`\n${file}: ${(total / 1e6).toFixed(2)} s busy, ${(idle / 1e6).toFixed(2)} s idle`);
  console.log(`  self time by owner:`);
  for (const [name, micros] of [...owners].sort((a, b) => b[1] - a[1]).slice(0, 15)) console.log(`    ${percent(micros)}  ${name}`);
  console.log(`  top functions by self time:`);
  for (const [name, micros] of [...functions].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`    ${percent(micros)}  ${name}`);
  console.log(`  the repository's functions by inclusive time:`);
  for (const [name, micros] of [...inclusive].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`    ${percent(micros)}  ${name}`);
}

if (positionals.length === 0) {
  console.error("usage: tsx deploy/bench/profile-top.ts <file.cpuprofile | directory> [--top 25]");
  process.exit(2);
}
for (const target of positionals) for (const file of files(target)) summarise(file);
