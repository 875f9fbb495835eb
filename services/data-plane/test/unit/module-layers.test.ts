// Dependencies point one way: the composition root -> the app -> routes ->
// the engine -> codecs, billing, limits, routing -> clients -> leaves. A
// module imports only from its own layer or the layers below it (import
// cycles are madge's to find, in `pnpm test`).
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const SOURCE = path.resolve(import.meta.dirname, "../../src");

/** Each top-level folder or file of src/ and its layer; higher layers use lower ones. */
const LAYERS: Record<string, number> = {
  "server.ts": 7,
  "data-plane.ts": 7,
  "config.ts": 6,
  "config-providers.ts": 6,
  "config-readers.ts": 6,
  app: 5,
  routes: 4,
  "request-context.ts": 4,
  engine: 3,
  dialects: 2,
  providers: 2,
  billing: 2,
  limits: 2,
  routing: 2,
  auth: 2,
  "metrics.ts": 2,
  "gen-ai-metrics.ts": 2,
  health: 4,
  "control-plane": 1,
  upstream: 1,
  catalogue: 1,
  "errors.ts": 0,
  "metric-families.ts": 0,
  "cumulative-counter.ts": 0,
  "project-rates.ts": 0,
  "call-coalescer.ts": 0,
  "redis-circuit.ts": 0,
  "log-destination.ts": 0,
  "response-close.ts": 0,
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "__fixtures__" ? [] : sourceFiles(full);
    return entry.name.endsWith(".ts") ? [full] : [];
  });
}

const topOf = (file: string) => path.relative(SOURCE, file).split(path.sep)[0]!;

/** Relative imports of a file, resolved to files under src/. */
function imports(file: string): string[] {
  const text = readFileSync(file, "utf8");
  return [...text.matchAll(/^(?:import|export)[^;]*?from "(\.[^"]+)"|^import "(\.[^"]+)"/gm)].map((match) =>
    path.resolve(path.dirname(file), match[1] ?? match[2]!),
  );
}

describe("module layers", () => {
  const files = sourceFiles(SOURCE);

  it("places every top-level module in a layer", () => {
    expect([...new Set(files.map(topOf))].filter((top) => !(top in LAYERS))).toEqual([]);
  });

  it("imports only from the same layer or below", () => {
    const upward: string[] = [];
    for (const file of files) {
      const from = topOf(file);
      for (const target of imports(file)) {
        const to = topOf(target.endsWith(".ts") ? target : `${target}.ts`);
        if (to !== from && LAYERS[to]! > LAYERS[from]!) upward.push(`${path.relative(SOURCE, file)} -> ${path.relative(SOURCE, target)}`);
      }
    }
    expect(upward).toEqual([]);
  });
});
