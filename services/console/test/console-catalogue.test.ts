// The console's Catalogue page in a real browser (issue 21) against a real control plane on PostgreSQL:
// the curated models' tiers, purposes, access paths, prices and verified flags equal the admin API's;
// the inventory is searched; a broken catalogue file is refused with its problems shown against its
// entries and nothing changed, then a fixed one is checked and loaded and its revision shown.
// Screenshots: catalogue-{1280,390}.png (after the load) and catalogue-problems-{1280,390}.png (page-screenshots.ts).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Browser, Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type GatewayStack, startStack } from "../../data-plane/test/harness/gateway-stack";
import type { components } from "../src/generated/admin-api";
import { consoleBuildOfItsOwn, removeConsoleBuilds } from "./console-build";
import { launchChromium } from "./browser";
import { pageScreenshots } from "./page-screenshots";

const DEFAULT_CATALOGUE = path.resolve(import.meta.dirname, "../../control-plane/src/catalogue/default-catalogue.json");

type CatalogueModel = components["schemas"]["CatalogueModel"];
type CatalogueRevision = components["schemas"]["CatalogueRevision"];
type CatalogueProblem = NonNullable<components["schemas"]["Error"]["error"]["problems"]>[number];

interface Listing {
  revision: CatalogueRevision;
  total: number;
  data: CatalogueModel[];
}

interface CatalogueFile {
  models: { id: string; tiers?: string[]; paths: { price?: Record<string, unknown> }[] }[];
}

const catalogueFile = (): CatalogueFile => JSON.parse(readFileSync(DEFAULT_CATALOGUE, "utf8")) as CatalogueFile;

describe("operator console: catalogue", () => {
  let stack: GatewayStack;
  let browser: Browser;
  let page: Page;
  let files: string;

  beforeAll(async () => {
    const controlPlaneEnv = await consoleBuildOfItsOwn();
    [stack, browser] = await Promise.all([startStack({ backend: "postgresql", controlPlaneEnv }), launchChromium()]);
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.setDefaultTimeout(10_000);
    files = mkdtempSync(path.join(os.tmpdir(), "console-catalogue-"));
  });

  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
    removeConsoleBuilds();
    if (files) rmSync(files, { recursive: true, force: true });
  });

  const api = async <T>(route: string): Promise<T> => {
    const answer = await stack.admin<T>("GET", route);
    expect(answer.status, route).toBe(200);
    return answer.json;
  };
  const revision = async () => (await api<Listing>("/admin/catalogue/models?limit=1")).revision;

  /** Every figure and flag of a model's row equals the API's. */
  async function expectRow(row: Locator, model: CatalogueModel): Promise<void> {
    expect((await row.locator('[data-field="tiers"]').textContent())?.split(", ")).toEqual(
      model.tiers.length > 0 ? model.tiers : [model.curated ? "none" : "inventory"],
    );
    expect((await row.locator('[data-field="purposes"]').textContent())?.split(", ")).toEqual(
      model.purposes.length > 0 ? model.purposes : ["none"],
    );
    const tokens = new Intl.NumberFormat("en-US");
    expect(await row.locator('[data-field="tokens"]').textContent()).toBe(
      `${tokens.format(model.context_length)} / ${tokens.format(model.max_output_tokens)}`,
    );
    await expect.poll(() => row.locator("[data-path]").count()).toBe(model.paths.length);
    for (const [index, path] of model.paths.entries()) {
      const block = row.locator(`[data-path="${index}"]`);
      expect(await block.locator('[data-field="provider"]').textContent()).toBe(path.provider);
      expect(await block.locator('[data-field="upstream_model"]').textContent()).toBe(path.upstream_model);
      expect(await block.locator('[data-field="verified"]').textContent()).toBe(path.price.verified ? "verified" : "not verified");
      // The base rates: the first list of the path (long-context and service-tier rates follow in their own).
      const rates = block.locator(".rates").first().locator("li");
      expect(await rates.count()).toBe(path.price.rates.length);
      for (const [position, rate] of path.price.rates.entries()) {
        const item = rates.nth(position);
        expect(await item.getAttribute("data-component")).toBe(rate.component);
        expect(await item.locator(".money").getAttribute("data-nano")).toBe(rate.amount.nano);
        expect(await item.locator(".money").textContent()).toBe(`$${rate.amount.usd}`);
        expect(await item.getAttribute("data-verified")).toBe(String(path.price.verified_components.includes(rate.component)));
      }
      const nanos = (where: string) =>
        block.locator(`[data-field="${where}"] li .money`).evaluateAll((items) => items.map((item) => item.getAttribute("data-nano")));
      expect(await block.locator('[data-field="long_context"]').count()).toBe(path.price.long_context ? 1 : 0);
      if (path.price.long_context)
        expect(await nanos("long_context")).toEqual(path.price.long_context.rates.map((rate) => rate.amount.nano));
      expect(await block.locator('[data-field^="service_tier_"]').count()).toBe(path.price.service_tiers.length);
      for (const tier of path.price.service_tiers)
        expect(await nanos(`service_tier_${tier.tier}`)).toEqual(tier.rates.map((rate) => rate.amount.nano));
    }
  }

  it("signs in and shows the curated models with the API's tiers, purposes, paths, prices and verified flags", async () => {
    await page.goto(`${stack.adminUrl}/console`);
    await page.getByLabel("Admin token").fill(stack.adminToken);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("link", { name: "Catalogue" }).click();
    await page.getByRole("heading", { name: "Catalogue", level: 1 }).waitFor();

    const curated = await api<Listing>("/admin/catalogue/models?curated=true&limit=200");
    expect(curated.total).toBeGreaterThan(0);
    await expect.poll(() => page.locator("table.catalogue").first().locator("tbody tr").count()).toBe(curated.total);
    expect(await page.locator('[data-field="revision_id"]').textContent()).toBe(curated.revision.id);
    expect(await page.locator('[data-field="revision_source"]').textContent()).toBe(curated.revision.source);
    expect(await page.locator('[data-field="revision"] time').getAttribute("datetime")).toBe(curated.revision.loaded_at);
    for (const model of curated.data) await expectRow(page.locator(`tr[data-model="${model.id}"]`), model);
    // Some path somewhere is verified and some component is not: both kinds of flag are on the page.
    expect(await page.locator('li[data-verified="true"]').count()).toBeGreaterThan(0);
    expect(await page.locator('li[data-verified="false"]').count()).toBeGreaterThan(0);
  });

  it("searches the inventory", async () => {
    const inventory = page.locator("section", { has: page.locator("#inventory-title") });
    await inventory.getByLabel("Search the inventory").fill("llama 3.1");
    await inventory.getByRole("button", { name: "Search" }).click();
    const found = await api<Listing>(`/admin/catalogue/models?curated=false&q=${encodeURIComponent("llama 3.1")}&limit=25`);
    expect(found.total).toBeGreaterThan(0);
    await expect
      .poll(() => inventory.locator('[data-field="inventory_count"]').textContent())
      .toBe(`1–${found.data.length} of ${found.total} matching “llama 3.1”`);
    expect(await inventory.locator("tbody tr").evaluateAll((rows) => rows.map((row) => row.getAttribute("data-model")))).toEqual(
      found.data.map((model) => model.id),
    );
    await expectRow(inventory.locator(`tr[data-model="${found.data[0]!.id}"]`), found.data[0]!);

    await inventory.getByLabel("Search the inventory").fill("no-such-model-anywhere");
    await inventory.getByRole("button", { name: "Search" }).click();
    await inventory.getByText("No inventory model matches “no-such-model-anywhere”.").waitFor();
    await inventory.getByLabel("Search the inventory").fill("llama 3.1");
    await inventory.getByRole("button", { name: "Search" }).click();
    await inventory.locator("tbody tr").first().waitFor();
  });

  const uploadForm = () => page.locator("section", { has: page.locator("#upload-title") });

  /** Writes the file and chooses it in the upload form. */
  async function choose(name: string, file: CatalogueFile): Promise<void> {
    const where = path.join(files, name);
    writeFileSync(where, JSON.stringify(file, null, 2));
    await uploadForm().getByLabel("Catalogue file (JSON)").setInputFiles(where);
  }

  it("refuses a broken file: every problem shown against its entry, nothing changed", async () => {
    const before = await revision();
    const broken = catalogueFile();
    Object.assign(broken.models[1]!.paths[0]!.price!, { cache_storage_per_m: "1.00" }); // not a component the gateway bills
    broken.models[2]!.tiers = ["premium"]; // not a tier
    broken.models[3]!.paths[0]!.price!.input_per_m = "2.0.0"; // not a USD amount
    broken.models.push(structuredClone(broken.models[4]!)); // an id twice
    // The API's own problems for this file (a dry run changes nothing either way).
    const refused = await stack.admin<{ error: { problems: CatalogueProblem[] } }>("PUT", "/admin/catalogue?dry_run=true", broken);
    expect(refused.status).toBe(400);
    const problems = refused.json.error.problems;
    expect(problems.map((problem) => problem.model)).toEqual([
      broken.models[1]!.id,
      broken.models[2]!.id,
      broken.models[3]!.id,
      broken.models[4]!.id,
    ]);

    await choose("broken-catalogue.json", broken);
    await uploadForm().getByRole("button", { name: "Load" }).click();
    const shown = uploadForm().locator('[data-field="problems"]');
    await shown.waitFor();
    expect(await shown.textContent()).toContain(`Nothing was changed: the catalogue is still revision ${before.id}.`);
    for (const problem of problems) {
      const entry = shown.locator(`li[data-entry="${/^\/models\/\d+/.exec(problem.pointer)![0]}"]`);
      expect(await entry.locator("strong").first().textContent()).toBe(problem.model);
      const item = entry.locator(`li[data-pointer="${problem.pointer}"]`);
      expect(await item.textContent()).toBe(`${problem.pointer} ${problem.message}`);
    }
    expect(await shown.locator("li[data-pointer]").count()).toBe(problems.length);
    // Nothing changed: the same revision in the API and on the page.
    expect(await revision()).toEqual(before);
    expect((await api<{ revision: string }>("/admin/catalogue")).revision).toBe(before.id);
    expect(await page.locator('[data-field="revision_id"]').textContent()).toBe(before.id);
    await pageScreenshots(page, "catalogue-problems", uploadForm());
  });

  it("checks a fixed file, then loads it: the new revision shown is the API's, and the prices follow", async () => {
    const before = await revision();
    const fixed = catalogueFile();
    fixed.models[0]!.paths[0]!.price!.input_per_m = "0.11";
    await choose("fixed-catalogue.json", fixed);

    await uploadForm().getByRole("button", { name: "Check only" }).click();
    await expect
      .poll(() => uploadForm().locator('[data-field="checked"]').textContent())
      .toMatch(/^The file is valid: .*Nothing was changed\.$/);
    expect(await uploadForm().locator('[data-field="problems"]').count()).toBe(0);
    expect(await revision()).toEqual(before);

    await uploadForm().getByRole("button", { name: "Load" }).click();
    const loaded = uploadForm().locator('[data-field="loaded_revision"]');
    await loaded.waitFor();
    const after = await revision();
    expect(after.id).not.toBe(before.id);
    expect(after.source).toBe("console: fixed-catalogue.json");
    expect(await loaded.textContent()).toBe(after.id);
    await expect.poll(() => page.locator('[data-field="revision_id"]').textContent()).toBe(after.id);
    expect(await page.locator('[data-field="revision"] time').getAttribute("datetime")).toBe(after.loaded_at);

    const curated = await api<Listing>("/admin/catalogue/models?curated=true&limit=200");
    const first = curated.data[0]!;
    expect(first.paths[0]!.price.rates[0]).toEqual({
      component: "input",
      unit: "per_million_tokens",
      amount: { nano: "110000000", usd: "0.11" },
    });
    const row = page.locator(`tr[data-model="${first.id}"]`);
    const input = row.locator('[data-path="0"] .rates').first().locator('li[data-component="input"] .money');
    await expect.poll(() => input.getAttribute("data-nano")).toBe("110000000");
    for (const model of curated.data) await expectRow(page.locator(`tr[data-model="${model.id}"]`), model);
    // The whole page: the loaded revision, the curated models, the upload's answer, the inventory searched.
    await page
      .locator("section", { has: page.locator("#inventory-title") })
      .locator("tbody tr")
      .first()
      .waitFor();
    await pageScreenshots(page, "catalogue");
  });
});
