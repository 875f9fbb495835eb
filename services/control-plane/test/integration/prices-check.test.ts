// `gatewayctl prices check` on the loaded catalogue: a real control plane (PGlite) with the default
// catalogue, read through `GET /admin/catalogue`, compared with a small price-list folder written to a
// temp directory. The comparison itself and the --file variant: unit/prices-check.test.ts.
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { scratchPgliteDir } from "../../../../deploy/test/pglite-template";
import { parseControlPlaneConfig } from "../../src/config";
import { startControlPlane, type RunningControlPlane } from "../../src/control-plane";
import { writeSources } from "../harness/price-lists-folder";

const REPO_ROOT = path.resolve(import.meta.dirname, "../../../..");
const ADMIN_TOKEN = "prices-check-admin";
const run = promisify(execFile);

describe("gatewayctl prices check on the loaded catalogue", () => {
  let dataDir: string;
  let databaseDir: string;
  let controlPlane: RunningControlPlane;

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), "prices-check-"));
    databaseDir = scratchPgliteDir("prices-check-database-");
    controlPlane = await startControlPlane(
      parseControlPlaneConfig({
        GATEWAY_DATA_DIR: databaseDir,
        GATEWAY_ALLOW_WEAK_TOKENS: "true", // short test tokens
        GATEWAY_INTERNAL_TOKEN: "prices-check-internal",
        GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN,
        CONTROL_PLANE_GRPC_PORT: "0",
        CONTROL_PLANE_ADMIN_PORT: "0",
        METRICS_PORT: "0",
        LOG_LEVEL: "silent",
      }),
    );
  });

  afterAll(async () => {
    await controlPlane?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    if (databaseDir) rmSync(databaseDir, { recursive: true, force: true });
  });

  async function check(sources: string): Promise<{ code: number; stdout: string; stderr: string }> {
    try {
      const args = ["--import", "tsx", "services/control-plane/src/cli/gatewayctl.ts", "prices", "check", "--sources", sources, "--json"];
      const { stdout, stderr } = await run(process.execPath, args, {
        cwd: REPO_ROOT,
        env: { ...process.env, GATEWAY_ADMIN_URL: controlPlane.adminUrl, GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN },
      });
      return { code: 0, stdout, stderr };
    } catch (error) {
      const failure = error as { code: number; stdout: string; stderr: string };
      return { code: failure.code, stdout: failure.stdout, stderr: failure.stderr };
    }
  }

  // Claude Sonnet 4 as the default catalogue prices it, direct and through OpenRouter.
  const claude = { nativeId: "claude-sonnet-4-20250514", openrouterId: "anthropic/claude-sonnet-4" };

  it("finds the default catalogue's Claude Sonnet 4 prices in agreement with lists that state the same", { timeout: 60_000 }, async () => {
    const sources = path.join(dataDir, "agree");
    writeSources(sources, claude);
    const result = await check(sources);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ checked: 2, disagreements: [] });
  });

  it("lists a component the loaded catalogue prices otherwise than the path's provider, and exits 1", { timeout: 60_000 }, async () => {
    const sources = path.join(dataDir, "disagree");
    writeSources(sources, { ...claude, openrouterCacheRead: "0.00000035" });
    const result = await check(sources);
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stdout).disagreements).toEqual([
      {
        model: "anthropic/claude-sonnet-4",
        path: "openrouter:anthropic/claude-sonnet-4",
        component: "cached_input",
        catalogue: "0.30",
        source: "OpenRouter 2026-08-01",
        figure: "0.35",
      },
    ]);
  });
});
