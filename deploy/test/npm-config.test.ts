// Settings only pnpm reads live in pnpm-workspace.yaml, not .npmrc: npm (every `npx` call) warns about
// a key it does not know in a project .npmrc, on every run.
import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const ROOT = path.resolve(import.meta.dirname, "../..");

describe("npm in this repository", () => {
  it("warns about no unknown project config", async () => {
    // Without the npm_config_* variables a `pnpm test` run passes to its children (pnpm's own settings).
    const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_config_/i.test(name)));
    const { stderr } = await promisify(execFile)("npm", ["config", "get", "registry"], { cwd: ROOT, env });
    expect(stderr).not.toMatch(/Unknown (project|env) config/);
  });
});
