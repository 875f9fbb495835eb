// The catalogue as the console uses it (issue 21): a refused file's problems placed against its
// entries with nothing changed, a dry run, and the browsable listing of the loaded models; on a real
// control plane (PGlite).
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CatalogueFile } from "../../src/catalogue/catalogue-file";
import type { RunningControlPlane } from "../../src/control-plane";
import { type EmbeddedControlPlane, startEmbeddedControlPlane } from "../harness/embedded-control-plane";

const ADMIN_TOKEN = "admin-catalogue-token";
const DEFAULT_CATALOGUE = path.resolve(import.meta.dirname, "../../src/catalogue/default-catalogue.json");
const INVENTORY = path.resolve(import.meta.dirname, "../../src/catalogue/inventory.json");
const defaultFile = (): CatalogueFile => JSON.parse(readFileSync(DEFAULT_CATALOGUE, "utf8")) as CatalogueFile;

interface Problem {
  pointer: string;
  model: string | null;
  message: string;
}

describe("admin API catalogue", () => {
  let embedded: EmbeddedControlPlane;
  let controlPlane: RunningControlPlane;

  const admin = async (method: string, route: string, body?: unknown) => {
    const response = await fetch(`${controlPlane.adminUrl}${route}`, {
      method,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as Record<string, any> };
  };
  const revision = async () => (await admin("GET", "/admin/catalogue/models?limit=1")).body.revision;

  beforeAll(async () => {
    embedded = await startEmbeddedControlPlane(ADMIN_TOKEN);
    controlPlane = embedded.controlPlane;
  });

  afterAll(async () => {
    await embedded?.stop();
  });

  it("refuses a file with schema and semantic faults, each against its entry, and changes nothing", async () => {
    const before = await revision();
    const file = defaultFile();
    Object.assign(file.models[1]!.paths[0]!.price!, { cache_storage_per_m: "1.00" }); // schema: not a component
    (file.models[2]!.tiers as string[]).push("premium"); // schema: not a tier
    file.models[3]!.paths[0]!.price!.input_per_m = "2.0.0"; // semantic: not a USD amount
    file.models.push({ ...file.models[4]!, paths: [...file.models[4]!.paths] }); // semantic: a duplicate id
    const { status, body } = await admin("PUT", "/admin/catalogue?source=broken", file);
    expect(status).toBe(400);
    expect(body.error.type).toBe("invalid_request_error");
    expect(body.error.code).toBe("invalid_request");
    const problems = body.error.problems as Problem[];
    expect(problems).toEqual([
      {
        pointer: "/models/1/paths/0/price/cache_storage_per_m",
        model: "openai/gpt-4o-mini",
        message: "openai/gpt-4o-mini paths[0].price: cache_storage_per_m is not a price component the gateway bills",
      },
      {
        pointer: "/models/2/tiers/1",
        model: "openai/gpt-4.1-mini",
        message: "openai/gpt-4.1-mini tiers[1] must be one of economy, balanced, quality",
      },
      {
        pointer: "/models/3/paths/0/price/input_per_m",
        model: "openai/gpt-4.1",
        message: 'openai/gpt-4.1 path 0: "2.0.0" is not a USD amount',
      },
      {
        pointer: "/models/9/id",
        model: "google/gemini-2.5-flash",
        message: "model google/gemini-2.5-flash appears twice",
      },
    ]);
    expect(await revision()).toEqual(before);
  });

  it("lists every file-wide fault of a file the schema accepts", async () => {
    const before = await revision();
    const file = defaultFile();
    file.defaults.embeddings = "openai/no-such-embeddings";
    file.models = file.models.filter((model) => !model.tiers?.includes("economy"));
    const { status, body } = await admin("PUT", "/admin/catalogue", file);
    expect(status).toBe(400);
    expect(body.error.problems).toEqual([
      { pointer: "/models", model: null, message: "no curated chat model with input and output prices is in the economy tier" },
      {
        pointer: "/defaults/embeddings",
        model: null,
        message: "defaults.embeddings names openai/no-such-embeddings, which is not an embeddings model of the file",
      },
    ]);
    expect(body.error.message).toBe((body.error.problems as Problem[]).map((problem) => problem.message).join("; "));
    expect(await revision()).toEqual(before);
  });

  it("keeps the answer bounded: quoted input cut, a few problems in the message, at most 1,000 listed", async () => {
    const before = await revision();
    const file = defaultFile();
    const longName = `x${"y".repeat(5_000)}_per_m`;
    Object.assign(file.models[0]!.paths[0]!.price!, { [longName]: "1" });
    // 1,200 inventory entries without their context length: one problem each.
    file.inventory = Array.from({ length: 1_200 }, (_, index) => ({
      ...file.models[1]!,
      id: `w/model-${index}`,
      context_length: undefined as never,
    }));
    const { status, body } = await admin("PUT", "/admin/catalogue", file);
    expect(status).toBe(400);
    const problems = body.error.problems as Problem[];
    expect(problems).toHaveLength(1_000);
    expect(problems[0]!.pointer).toBe(`/models/0/paths/0/price/x${"y".repeat(199)}... (4807 more characters)`);
    expect(problems[0]!.message.length).toBeLessThan(450);
    expect(problems[1]).toEqual({ pointer: "/inventory/0", model: "w/model-0", message: "w/model-0 context_length is missing" });
    expect(body.error.message).toMatch(/, and 1199 more \(1201 problems; the first 1000 are listed\)$/);
    expect(body.error.message.length).toBeLessThan(1_000);
    expect(await revision()).toEqual(before);
  });

  it("checks a file without loading it on a dry run", async () => {
    const before = await revision();
    const { status, body } = await admin("PUT", "/admin/catalogue?dry_run=true", defaultFile());
    expect(status).toBe(200);
    const inventory = (JSON.parse(readFileSync(INVENTORY, "utf8")) as unknown[]).length;
    expect(body).toEqual({ revision: null, models: 9 + inventory, curated: 9, dry_run: true });
    expect(await revision()).toEqual(before);
    const broken = defaultFile();
    broken.models[0]!.paths[0]!.price!.output_per_m = "x";
    const refused = await admin("PUT", "/admin/catalogue?dry_run=true", broken);
    expect(refused.status).toBe(400);
    expect(refused.body.error.problems).toEqual([
      {
        pointer: "/models/0/paths/0/price/output_per_m",
        model: "openai/gpt-4.1-nano",
        message: 'openai/gpt-4.1-nano path 0: "x" is not a USD amount',
      },
    ]);
  });

  it("lists the curated models in the file's order, with paths, prices per component and verified flags", async () => {
    const { status, body } = await admin("GET", "/admin/catalogue/models?curated=true");
    expect(status).toBe(200);
    expect(body.total).toBe(9);
    expect(body.data.map((model: { id: string }) => model.id)).toEqual(defaultFile().models.map((model) => model.id));
    const sonnet = body.data.find((model: { id: string }) => model.id === "anthropic/claude-sonnet-4");
    expect(sonnet).toMatchObject({
      curated: true,
      tiers: ["quality"],
      purposes: ["agent", "code"],
      owned_by: "anthropic",
      capabilities: { tools: true, json_schema: false, embeddings: false },
    });
    const perM = (component: string, nano: string, usd: string) => ({ component, unit: "per_million_tokens", amount: { nano, usd } });
    // Anthropic's own API, the clouds' (no credentials: their own credential chains), then OpenRouter.
    expect(sonnet.paths.map((p: { provider: string; credentials: string | null }) => [p.provider, p.credentials])).toEqual([
      ["anthropic", "ANTHROPIC_API_KEY"],
      ["bedrock", null],
      ["vertex", null],
      ["openrouter", "OPENROUTER_API_KEY"],
    ]);
    const [anthropic, , , openrouter] = sonnet.paths;
    expect(anthropic).toMatchObject({
      provider: "anthropic",
      upstream_model: "claude-sonnet-4-20250514",
      credentials: "ANTHROPIC_API_KEY",
    });
    expect(anthropic.price).toMatchObject({
      rates: [
        perM("input", "3000000000", "3.00"),
        perM("output", "15000000000", "15.00"),
        perM("cached_input", "300000000", "0.30"),
        perM("cache_write_5m", "3750000000", "3.75"),
        perM("cache_write_1h", "6000000000", "6.00"),
        { component: "web_search", unit: "each", amount: { nano: "10000000", usd: "0.01" } },
      ],
      long_context: {
        above_input_tokens: 200000,
        rates: [
          perM("input", "6000000000", "6.00"),
          perM("output", "22500000000", "22.50"),
          perM("cached_input", "600000000", "0.60"),
          perM("cache_write_5m", "7500000000", "7.50"),
          perM("cache_write_1h", "12000000000", "12.00"),
        ],
      },
      service_tiers: [],
      verified: true,
      verified_components: ["input", "output", "cached_input", "cache_write_5m", "cache_write_1h"],
    });
    expect(openrouter.price.verified_components).toEqual(["input", "output"]);
  });

  it("searches the inventory by words of the id, owner, provider or upstream model, a page at a time", async () => {
    const all = await admin("GET", "/admin/catalogue/models?curated=false&q=LLAMA%203.1&limit=200");
    expect(all.status).toBe(200);
    expect(all.body.total).toBeGreaterThan(1);
    for (const model of all.body.data) {
      expect(model.curated).toBe(false);
      expect(JSON.stringify([model.id, model.owned_by, model.paths]).toLowerCase()).toMatch(/llama[\s\S]*3\.1|3\.1[\s\S]*llama/);
    }
    const second = await admin("GET", "/admin/catalogue/models?curated=false&q=LLAMA%203.1&limit=1&offset=1");
    expect(second.body).toMatchObject({ total: all.body.total, limit: 1, offset: 1, data: [all.body.data[1]] });
    const none = await admin("GET", "/admin/catalogue/models?q=no-such-model-anywhere");
    expect(none.body).toMatchObject({ total: 0, data: [] });
    const refused = await admin("GET", "/admin/catalogue/models?limit=1000");
    expect(refused.status).toBe(400);
  });

  it("shows the revision a load made, with its source and time", async () => {
    const file = defaultFile();
    file.models[0]!.paths[0]!.price!.input_per_m = "0.11";
    const loaded = await admin("PUT", "/admin/catalogue?source=fixed.json", file);
    expect(loaded.status).toBe(200);
    expect(loaded.body.dry_run).toBe(false);
    const listed = await admin("GET", "/admin/catalogue/models?curated=true&limit=1");
    expect(listed.body.revision).toEqual({ id: loaded.body.revision, source: "fixed.json", loaded_at: expect.any(String) });
    expect(Date.now() - Date.parse(listed.body.revision.loaded_at)).toBeLessThan(60_000);
    expect(listed.body.data[0].paths[0].price.rates[0]).toEqual({
      component: "input",
      unit: "per_million_tokens",
      amount: { nano: "110000000", usd: "0.11" },
    });
    const snapshot = await admin("GET", "/admin/catalogue");
    expect(snapshot.body.revision).toBe(loaded.body.revision);
  });
});
