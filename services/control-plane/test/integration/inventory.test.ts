// The inventory end to end in the control plane: a fresh database gets the
// curated default catalogue with inventory.json appended, the snapshot the data
// planes receive lists curated models first, and `--check` of the committed inventory.json: it
// passes when the generator's input (DATA_DIR, kept outside the repository) is there, and says
// plainly that it did not run when it is not. The generator's own logic: unit/inventory-generator.test.ts.
import { execFile } from "node:child_process";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { scratchPgliteDir } from "../../../../deploy/test/pglite-template";
import { checkInventory, DATA_DIR } from "../../scripts/generate-inventory";
import type { CatalogueFile, CatalogueModelEntry } from "../../src/catalogue/catalogue-file";
import { withInventory } from "../../src/catalogue/load-default-catalogue";
import { parseControlPlaneConfig } from "../../src/config";
import { startControlPlane, type RunningControlPlane } from "../../src/control-plane";

const REPO_ROOT = path.resolve(import.meta.dirname, "../../../..");
const CATALOGUE_DIR = path.join(REPO_ROOT, "services/control-plane/src/catalogue");
/** Whether the generator's input is next to this clone: the two `--check` tests assert what each case must do. */
const haveData = existsSync(DATA_DIR);
const ADMIN_TOKEN = "inventory-admin";

const readJson = <T>(file: string): T => JSON.parse(readFileSync(path.join(CATALOGUE_DIR, file), "utf8")) as T;

describe("inventory in the control plane", () => {
  const curated = readJson<CatalogueFile>("default-catalogue.json");
  const inventory = readJson<CatalogueModelEntry[]>("inventory.json");
  let dataDir: string;
  let controlPlane: RunningControlPlane;

  beforeAll(async () => {
    dataDir = scratchPgliteDir("inventory-");
    controlPlane = await startControlPlane(
      parseControlPlaneConfig({
        GATEWAY_DATA_DIR: dataDir,
        GATEWAY_ALLOW_WEAK_TOKENS: "true", // short test tokens
        GATEWAY_INTERNAL_TOKEN: "inventory-internal",
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
  });

  it("loads the curated models first, then the inventory with empty tiers and purposes", async () => {
    const snapshot = await controlPlane.services.catalogue.snapshot();
    const ids = (snapshot.models ?? []).map((model) => model.id);
    expect(ids).toEqual([...curated.models.map((model) => model.id), ...inventory.map((entry) => entry.id)]);
    const appended = (snapshot.models ?? []).slice(curated.models.length);
    expect(appended.length).toBeGreaterThanOrEqual(300);
    for (const model of appended) {
      expect(model.curated).toBe(false);
      expect(model.tiers).toEqual([]);
      expect(model.purposes).toEqual([]);
    }
    expect((snapshot.models ?? []).slice(0, curated.models.length).every((model) => model.curated)).toBe(true);
  });

  it("carries paths, prices and the verified flag through to the snapshot", async () => {
    const snapshot = await controlPlane.services.catalogue.snapshot();
    const byId = new Map((snapshot.models ?? []).map((model) => [model.id, model]));
    for (const entry of inventory) {
      const model = byId.get(entry.id)!;
      expect((model.paths ?? []).map((p) => [p.provider, p.upstreamModel, p.price?.verified])).toEqual(
        entry.paths.map((p) => [p.provider, p.upstream_model, p.price?.verified ?? false]),
      );
    }
    const embeddings = (snapshot.models ?? []).filter((model) => !model.curated && model.embeddings);
    expect(embeddings.length).toBeGreaterThan(0);
    expect(embeddings.every((model) => (model.outputModalities ?? []).includes("embeddings"))).toBe(true);
  });

  it("accepts the same file through the admin API's schema (PUT /admin/catalogue)", async () => {
    const response = await fetch(`${controlPlane.adminUrl}/admin/catalogue?source=inventory-test`, {
      method: "PUT",
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify(withInventory(curated, inventory)),
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ models: curated.models.length + inventory.length, curated: curated.models.length });
  });

  it("keeps the generated inventory when an operator loads a file without one (gatewayctl catalogue load)", async () => {
    const response = await fetch(`${controlPlane.adminUrl}/admin/catalogue?source=operator`, {
      method: "PUT",
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify({ ...curated, inventory: [] }),
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ models: curated.models.length + inventory.length, curated: curated.models.length });
  });

  it(
    haveData
      ? "generator --check passes against the committed inventory.json"
      : "generator --check, without its input, says plainly that it did not run and exits 0",
    async () => {
      const tsx = path.join(REPO_ROOT, "node_modules/.bin/tsx");
      // execFile rejects on a non-zero exit: both cases exit 0.
      const { stdout, stderr } = await promisify(execFile)(tsx, ["services/control-plane/scripts/generate-inventory.ts", "--check"], {
        cwd: REPO_ROOT,
      });
      if (haveData) {
        expect(stdout).toContain("inventory.json is up to date");
        expect(stderr).not.toContain("did not run");
      } else {
        expect(stderr).toContain(`inventory check did not run: ${DATA_DIR} is absent`);
        expect(stdout).not.toContain("is up to date");
      }
    },
  );

  it(
    haveData
      ? "--check reports a stale inventory, and says it did not run when its input is absent"
      : "--check, without its input, reports that it did not run for any inventory, stale or not",
    () => {
      const stale = path.join(dataDir, "inventory.json");
      writeFileSync(stale, `${JSON.stringify(inventory.slice(1), null, 2)}\n`);
      if (haveData)
        expect(checkInventory(DATA_DIR, stale)).toMatchObject({ ok: false, ran: true, message: expect.stringContaining("is stale") });
      else expect(checkInventory(DATA_DIR, stale)).toEqual({ ok: true, ran: false, message: expect.stringContaining("did not run") });
      expect(checkInventory(path.join(dataDir, "no-catalogue-data"), stale)).toEqual({
        ok: true,
        ran: false,
        message: expect.stringMatching(/^inventory check did not run: .*no-catalogue-data is absent/),
      });
    },
  );
});
