// `gatewayctl prices check` on a small price-list folder written to a temp directory (the layout of
// ../shared/data/catalogue): the comparison (cli/prices-check.ts), its table, and the command itself
// run as operators run it, on a catalogue file. The loaded-catalogue variant (admin API): integration/prices-check.test.ts.
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import type { Catalogue__Output } from "@gateway/proto";
import type { CatalogueFile, CatalogueModelEntry } from "../../src/catalogue/catalogue-file";
import { readPriceLists } from "../../src/catalogue/price-lists";
import { checkPrices, formatCheck, pathsOfFile, pathsOfSnapshot } from "../../src/cli/prices-check";
import { writeSources } from "../harness/price-lists-folder";

const REPO_ROOT = path.resolve(import.meta.dirname, "../../../..");
const run = promisify(execFile);

const chat = (id: string, tier: "economy" | "balanced" | "quality", paths: CatalogueModelEntry["paths"]): CatalogueModelEntry => ({
  id,
  tiers: [tier],
  context_length: 200_000,
  max_output_tokens: 8_000,
  paths,
});

/** A catalogue file: claude-x through Anthropic and OpenRouter, with cache and long-context prices. */
function catalogue(): CatalogueFile {
  const price = {
    input_per_m: "3.00",
    output_per_m: "15.00",
    cached_input_per_m: "0.30",
    cache_write_5m_per_m: "3.75",
    long_context: { above_input_tokens: 200000, input_per_m: "6.00" },
    verified: false,
  };
  return {
    version: 1,
    defaults: { embeddings: "v/embed" },
    models: [
      chat("anthropic/claude-x", "quality", [
        { provider: "anthropic", upstream_model: "claude-x-1", price },
        { provider: "openrouter", upstream_model: "anthropic/claude-x", price },
      ]),
      chat("v/economy", "economy", [
        { provider: "v", upstream_model: "e", price: { input_per_m: "1", output_per_m: "1", verified: false } },
      ]),
      chat("v/balanced", "balanced", [
        { provider: "v", upstream_model: "b", price: { input_per_m: "1", output_per_m: "1", verified: false } },
      ]),
      {
        id: "v/embed",
        context_length: 8_000,
        max_output_tokens: 0,
        capabilities: { embeddings: true },
        paths: [{ provider: "v", upstream_model: "emb", price: { input_per_m: "0.02", verified: false } }],
      },
    ],
  };
}

describe("prices check", () => {
  const scratch = mkdtempSync(path.join(os.tmpdir(), "prices-check-"));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));
  const sourcesDir = (name: string, overrides: Parameters<typeof writeSources>[1] = {}) => {
    const dir = path.join(scratch, name);
    writeSources(dir, overrides);
    return dir;
  };

  it("finds nothing when every component agrees with its provider's figures (and counts paths the sources do not know)", () => {
    const result = checkPrices(pathsOfFile(catalogue()), readPriceLists(sourcesDir("agree")));
    expect(result).toEqual({ checked: 2, unchecked: 3, disagreements: [] });
    expect(formatCheck(result)).toBe("no disagreement (2 paths compared, 3 without a figure in the sources)");
  });

  it("lists each component that disagrees beyond 0.5% with the figure of the path's own provider", () => {
    const lists = readPriceLists(sourcesDir("disagree", { openrouterCacheRead: "0.00000035", litellmLongInput: 5e-6 }));
    expect(checkPrices(pathsOfFile(catalogue()), lists).disagreements).toEqual([
      // The direct path against litellm (models.dev states no long context); OpenRouter's figure is not its provider's.
      {
        model: "anthropic/claude-x",
        path: "anthropic:claude-x-1",
        component: "long_context.input",
        catalogue: "6.00",
        source: "litellm claude-x-1",
        figure: "5.00",
      },
      // The OpenRouter path against the newest OpenRouter list only.
      {
        model: "anthropic/claude-x",
        path: "openrouter:anthropic/claude-x",
        component: "cached_input",
        catalogue: "0.30",
        source: "OpenRouter 2026-08-01",
        figure: "0.35",
      },
    ]);
  });

  it("prints a table with a header row", () => {
    const lists = readPriceLists(sourcesDir("table", { openrouterCacheRead: "0.00000035" }));
    expect(formatCheck(checkPrices(pathsOfFile(catalogue()), lists)).split("\n")).toEqual([
      "model               path                           component     catalogue  source                 sources' figure",
      "anthropic/claude-x  openrouter:anthropic/claude-x  cached_input  0.30       OpenRouter 2026-08-01  0.35",
      "",
      "1 disagreements (2 paths compared, 3 without a figure in the sources)",
    ]);
  });

  it("reads the loaded catalogue's prices as the admin API shows them (nano-USD strings, the proto's field names)", () => {
    const snapshot = {
      revision: "1",
      models: [
        {
          id: "anthropic/claude-x",
          paths: [
            {
              provider: "anthropic",
              upstreamModel: "claude-x-1",
              price: {
                inputNanoPerM: "3000000000",
                outputNanoPerM: "15000000000",
                cachedInputNanoPerM: "350000000",
                cacheWrite_5mNanoPerM: "3750000000",
                webSearchNano: "10000000",
                longContext: { aboveInputTokens: 272000, rates: { inputNanoPerM: "6000000000" } },
                serviceTiers: { priority: { inputNanoPerM: "6000000000" } },
              },
            },
          ],
        },
      ],
    } as unknown as Catalogue__Output;
    const [claude] = pathsOfSnapshot(snapshot);
    expect(Object.fromEntries(claude!.sheet)).toEqual({
      input: 3_000_000_000n,
      output: 15_000_000_000n,
      cached_input: 350_000_000n,
      cache_write_5m: 3_750_000_000n,
      web_search: 10_000_000n,
      "long_context.above_input_tokens": 272_000n,
      "long_context.input": 6_000_000_000n,
      "service_tiers.priority.input": 6_000_000_000n,
    });
    const rows = checkPrices([claude!], readPriceLists(sourcesDir("snapshot"))).disagreements;
    expect(rows.map((row) => [row.component, row.source, row.catalogue, row.figure])).toEqual([
      ["cached_input", "models.dev anthropic/claude-x-1", "0.35", "0.30"],
      ["cached_input", "litellm claude-x-1", "0.35", "0.30"],
      ["long_context.above_input_tokens", "litellm claude-x-1", "272000", "200000"],
    ]);
  });

  it("checks a cloud path (bedrock, vertex, azure) against that cloud's own entries, not the vendor's; another provider name is not compared", () => {
    const lists = {
      openrouter: [],
      modelsDev: {
        anthropic: { models: { "claude-x-1": { id: "claude-x-1", cost: { input: 3, output: 15 } } } },
        "google-vertex-anthropic": { models: { "claude-x@1": { id: "claude-x@1", cost: { input: 3, output: 15, cache_read: 0.3 } } } },
        azure: { models: { "gpt-x": { id: "gpt-x", cost: { input: 2.5, output: 10 } } } },
      },
      litellm: {
        "us.anthropic.claude-x-1-v1:0": {
          litellm_provider: "bedrock_converse",
          input_cost_per_token: 3.3e-6,
          output_cost_per_token: 1.65e-5,
        },
        "azure/global-standard/gpt-x": { litellm_provider: "azure", input_cost_per_token: 2.5e-6, output_cost_per_token: 1e-5 },
      },
    };
    const price = { input_per_m: "3.00", output_per_m: "15.00", cached_input_per_m: "0.30", verified: false };
    const file = catalogue();
    file.models[0]!.paths.push(
      { provider: "bedrock", upstream_model: "us.anthropic.claude-x-1-v1:0", price },
      { provider: "vertex", upstream_model: "claude-x@1", price },
      { provider: "bedrock-eu", upstream_model: "eu.anthropic.claude-x-1-v1:0", price },
    );
    file.models[1]!.paths.push({
      provider: "azure",
      upstream_model: "gpt-x",
      price: { input_per_m: "2.50", output_per_m: "10", verified: true },
    });
    const result = checkPrices(pathsOfFile(file), lists);
    expect(result.disagreements.filter((row) => !row.path.startsWith("anthropic:"))).toEqual([
      {
        model: "anthropic/claude-x",
        path: "bedrock:us.anthropic.claude-x-1-v1:0",
        component: "input",
        catalogue: "3.00",
        source: "litellm us.anthropic.claude-x-1-v1:0",
        figure: "3.30",
      },
      {
        model: "anthropic/claude-x",
        path: "bedrock:us.anthropic.claude-x-1-v1:0",
        component: "output",
        catalogue: "15.00",
        source: "litellm us.anthropic.claude-x-1-v1:0",
        figure: "16.50",
      },
    ]);
    // anthropic, bedrock, vertex and azure compared; openrouter (no list), bedrock-eu (an operator's name) and the v/ paths not.
    expect([result.checked, result.unchecked]).toEqual([4, 5]);
  });

  describe("the command", () => {
    const ctl = async (...args: string[]) => {
      try {
        const { stdout, stderr } = await run(
          process.execPath,
          ["--import", "tsx", "services/control-plane/src/cli/gatewayctl.ts", ...args],
          {
            cwd: REPO_ROOT,
          },
        );
        return { code: 0, stdout, stderr };
      } catch (error) {
        const failure = error as { code: number; stdout: string; stderr: string };
        return { code: failure.code, stdout: failure.stdout, stderr: failure.stderr };
      }
    };
    const file = path.join(scratch, "catalogue.json");
    writeFileSync(file, JSON.stringify(catalogue()));

    it("exits 1 and prints the table when a price disagrees, 0 when none does", { timeout: 60_000 }, async () => {
      const disagreeing = await ctl(
        "prices",
        "check",
        "--sources",
        sourcesDir("cli-disagree", { openrouterCacheRead: "0.0000004" }),
        "--file",
        file,
      );
      expect(disagreeing.code).toBe(1);
      expect(disagreeing.stdout).toMatch(/^model +path +component +catalogue +source +sources' figure\n/);
      expect(disagreeing.stdout).toContain("openrouter:anthropic/claude-x  cached_input  0.30");
      const agreeing = await ctl("prices", "check", "--sources", sourcesDir("cli-agree"), "--file", file, "--json");
      expect(agreeing.code).toBe(0);
      expect(JSON.parse(agreeing.stdout)).toEqual({ checked: 2, unchecked: 3, disagreements: [] });
    });

    it("refuses a missing sources folder and a file that is not a catalogue; documents itself in --help", { timeout: 60_000 }, async () => {
      const missing = await ctl("prices", "check", "--sources", path.join(scratch, "none"), "--file", file);
      expect(missing).toMatchObject({ code: 1, stderr: expect.stringContaining("cannot read the price lists in") });
      const bad = path.join(scratch, "bad.json");
      writeFileSync(bad, JSON.stringify({ ...catalogue(), models: [] }));
      const invalid = await ctl("prices", "check", "--sources", sourcesDir("cli-bad"), "--file", bad);
      expect(invalid).toMatchObject({
        code: 1,
        stderr: expect.stringContaining("bad.json is not a catalogue file: no curated chat model"),
      });
      const help = await ctl("prices", "check", "--help");
      expect(help.stdout).toContain("prices check --sources DIR [--file CATALOGUE.json]");
    });
  });
});
