// The inventory generator's pure parts on hand-made inputs (unit conversion, the
// verified rule, id mapping, what is skipped), reading and checking on a small excerpt
// of the public lists kept in the repository (test/fixtures/catalogue), and the
// committed inventory.json against the catalogue's own validation.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  buildInventory,
  checkInventory,
  cloudPaths,
  embeddingEntries,
  judgeComponent,
  judgePrice,
  mapToNative,
  matchKey,
  pricesAgree,
  readSources,
  serializeInventory,
  type SourceData,
} from "../../scripts/generate-inventory";
import { cloudModels } from "../../src/catalogue/price-clouds";
import { type Figure, type OpenRouterModel, openrouterFigure, toNanoPerM, tokenPrice } from "../../src/catalogue/price-lists";
import type { CatalogueFile, CatalogueModelEntry } from "../../src/catalogue/catalogue-file";
import { normalizeCatalogue } from "../../src/catalogue/normalize-catalogue";
import { withInventory } from "../../src/catalogue/load-default-catalogue";

const CATALOGUE_DIR = path.resolve(import.meta.dirname, "../../src/catalogue");
const readJson = <T>(name: string): T => JSON.parse(readFileSync(path.join(CATALOGUE_DIR, name), "utf8")) as T;

const figure = (publisher: Figure["publisher"], input: bigint, output: bigint, label: string = publisher): Figure => ({
  publisher,
  label,
  price: { input, output },
  components: new Map(),
});
const M = 1_000_000_000n; // 1 USD per million tokens, in nano-USD

describe("toNanoPerM: exact unit conversion", () => {
  it.each([
    ["0.00000015", "per-token", 150_000_000n], // OpenRouter string: $0.15 / M
    [1.5e-7, "per-token", 150_000_000n], // litellm number (binary float 1.5e-7 * 1e6 = 0.15000000000000002)
    [6e-7, "per-token", 600_000_000n],
    ["0.0000006000000000000001", "per-token", 600_000_000n], // float noise in OpenRouter's text rounds away
    ["0.00000100000000000000015", "per-token", 1_000_000_000n],
    [0.075, "per-million", 75_000_000n], // models.dev: already per M
    [3, "per-million", 3_000_000_000n],
    ["0", "per-token", 0n],
    ["2E-6", "per-token", 2_000_000_000n],
  ] as const)("%s (%s) -> %s nano-USD", (value, unit, nano) => {
    expect(toNanoPerM(value, unit)).toBe(nano);
  });

  it.each([["-1"], [-0.5], [undefined], [null], ["abc"], [""], [Number.NaN], ["."]])(
    "refuses %s (variable, negative or missing)",
    (value) => {
      expect(toNanoPerM(value, "per-token")).toBeUndefined();
    },
  );

  it("needs both halves of a price", () => {
    expect(tokenPrice("0.000001", "-1", "per-token")).toBeUndefined();
    expect(tokenPrice("0.000001", "0.000002", "per-token")).toEqual({ input: M, output: 2n * M });
  });
});

describe("the verified rule", () => {
  it("agreement means input and output each within 0.5%", () => {
    expect(pricesAgree({ input: 1000n, output: 2000n }, { input: 1004n, output: 2009n })).toBe(true);
    expect(pricesAgree({ input: 1000n, output: 2000n }, { input: 1006n, output: 2000n })).toBe(false);
    expect(pricesAgree({ input: 1000n, output: 2000n }, { input: 1000n, output: 2011n })).toBe(false);
    expect(pricesAgree({ input: 0n, output: 0n }, { input: 0n, output: 0n })).toBe(true);
    expect(pricesAgree({ input: 0n, output: 0n }, { input: 1n, output: 0n })).toBe(false);
  });

  it("is verified when a second publisher agrees", () => {
    const result = judgePrice(figure("openrouter", 3n * M, 15n * M, "OpenRouter 2026-08-01"), [
      figure("models.dev", 3n * M, 15n * M, "models.dev anthropic/x"),
    ]);
    expect(result.verified).toBe(true);
    expect(result.source).toContain("OpenRouter 2026-08-01 = models.dev anthropic/x");
  });

  it("is not verified by one source alone, nor by two figures of the same publisher", () => {
    expect(judgePrice(figure("openrouter", M, M), []).verified).toBe(false);
    const sameHouse = judgePrice(figure("litellm", M, M, "litellm gpt-x"), [figure("litellm", M, M, "litellm openrouter/openai/gpt-x")]);
    expect(sameHouse.verified).toBe(false);
    expect(sameHouse.source).toMatch(/^unverified: .*one publisher/);
  });

  it("says which sources differ, verified or not", () => {
    const disagreed = judgePrice(figure("openrouter", M, 2n * M, "OpenRouter"), [figure("litellm", 2n * M, 2n * M, "litellm x")]);
    expect(disagreed).toEqual({ verified: false, source: "unverified: only OpenRouter; differs: litellm x 2.00/2.00" });
    const outvoted = judgePrice(figure("openrouter", M, M, "OpenRouter"), [
      figure("models.dev", M, M, "models.dev x"),
      figure("litellm", 5n * M, M, "litellm x"),
    ]);
    expect(outvoted.verified).toBe(true);
    expect(outvoted.source).toContain("differs: litellm x 5.00/1.00");
  });
});

describe("the verified rule for each other component", () => {
  const stating = (publisher: Figure["publisher"], components: Record<string, bigint>): Figure => ({
    ...figure(publisher, M, M),
    components: new Map(Object.entries(components)),
  });
  const longContext = (above: bigint, input: bigint) => ({ "long_context.above_input_tokens": above, "long_context.input": input });

  it("is verified when another publisher states the same figure within 0.5%", () => {
    const chosen = stating("litellm", { cached_input: 300_000_000n });
    expect(judgeComponent("cached_input", chosen, [stating("openrouter", { cached_input: 301_000_000n })])).toEqual({
      verified: true,
      verdict: "verified (litellm = OpenRouter)",
    });
  });

  it("is not verified by the same publisher, nor by a figure silent on it", () => {
    const chosen = stating("litellm", { cached_input: 300_000_000n });
    expect(judgeComponent("cached_input", chosen, [stating("litellm", { cached_input: 300_000_000n })])).toEqual({
      verified: false,
      verdict: "unverified (litellm (one publisher))",
    });
    expect(judgeComponent("cached_input", chosen, [stating("models.dev", {})])).toEqual({
      verified: false,
      verdict: "unverified (only litellm)",
    });
  });

  it("says which publishers differ", () => {
    const chosen = stating("litellm", { web_search: 35_000_000n });
    expect(judgeComponent("web_search", chosen, [stating("openrouter", { web_search: 14_000_000n })])).toEqual({
      verified: false,
      verdict: "unverified (only litellm; differs: OpenRouter)",
    });
  });

  it("needs the same long-context threshold and every rate of the tier", () => {
    const chosen = stating("openrouter", { ...longContext(200_000n, 6n * M), "long_context.output": 22n * M });
    const agrees = stating("litellm", { ...longContext(200_000n, 6n * M), "long_context.output": 22n * M });
    expect(judgeComponent("long_context", chosen, [agrees]).verified).toBe(true);
    const otherThreshold = stating("litellm", { ...longContext(272_000n, 6n * M), "long_context.output": 22n * M });
    expect(judgeComponent("long_context", chosen, [otherThreshold]).verdict).toBe("unverified (only OpenRouter; differs: litellm)");
    // Silent on the output rate: neither confirms the tier nor contradicts it.
    expect(judgeComponent("long_context", chosen, [stating("models.dev", longContext(200_000n, 6n * M))]).verdict).toBe(
      "unverified (only OpenRouter)",
    );
  });
});

describe("id mapping to provider-native ids", () => {
  const anthropic = ["claude-sonnet-4-20250514", "claude-sonnet-4-0", "claude-opus-4-5", "claude-opus-4-5-20251101"];
  const names = new Map([
    ["gpt-5-chat-latest", "GPT-5 Chat (latest)"],
    ["gpt-4o", "GPT-4o"],
  ]);

  it.each([
    ["openai/gpt-4o", undefined, ["gpt-4o", "gpt-4o-mini"], "gpt-4o"], // same id
    ["anthropic/claude-sonnet-4", "Anthropic: Claude Sonnet 4", anthropic, "claude-sonnet-4-20250514"], // date suffix, pinned id wins
    ["anthropic/claude-opus-4.5", undefined, anthropic, "claude-opus-4-5-20251101"], // dots as dashes
    ["openai/gpt-5-chat", "OpenAI: GPT-5 Chat", ["gpt-5-chat-latest", "gpt-4o"], "gpt-5-chat-latest"], // by display name
    ["openai/gpt-4o-2024-05-13", undefined, ["gpt-4o"], undefined], // a dated id never falls back to the undated model
    ["openai/gpt-oss-20b:free", undefined, ["gpt-oss-20b"], undefined], // OpenRouter-only variant
  ])("%s -> %s", (id, name, nativeIds, expected) => {
    expect(mapToNative({ id, ...(name ? { name } : {}) }, nativeIds, names)).toBe(expected);
  });

  it("matchKey ignores dots and trailing dates", () => {
    expect(matchKey("claude-sonnet-4-5-20250929")).toBe("claude-sonnet-4-5");
    expect(matchKey("gpt-4o-2024-08-06")).toBe("gpt-4o");
    expect(matchKey("Gemini-2.5-Flash")).toBe("gemini-2-5-flash");
  });
});

const orModel = (id: string, prompt: string, completion: string, extra: Partial<OpenRouterModel> = {}): OpenRouterModel => ({
  id,
  name: id,
  created: 1_700_000_000,
  context_length: 128_000,
  architecture: { input_modalities: ["text", "image"], output_modalities: ["text"] },
  pricing: { prompt, completion },
  top_provider: { context_length: 128_000, max_completion_tokens: 16_384 },
  supported_parameters: ["tools", "structured_outputs"],
  ...extra,
});

function sources(overrides: Partial<SourceData> = {}): SourceData {
  return {
    openrouter: [
      {
        date: "2026-08-01",
        models: [
          orModel("openai/gpt-x", "0.0000025", "0.00001"),
          orModel("acme/free-one:free", "0", "0"),
          orModel("openrouter/auto", "-1", "-1"),
          orModel("~openai/gpt-latest", "0.0000025", "0.00001"),
          orModel("openai/curated-one", "0.0000001", "0.0000004"),
          orModel("acme/painter", "0.000001", "0.000002", {
            architecture: { output_modalities: ["image", "text"] },
            pricing: { prompt: "0.000001", completion: "0.000002", image_output: "0.00003" },
          }),
        ],
      },
      // The older list: only ids missing from the newer one are taken from it.
      { date: "2026-05-15", models: [orModel("openai/gpt-x", "0.000009", "0.000009"), orModel("acme/old-one", "0.000001", "0.000001")] },
    ],
    modelsDev: {
      openai: {
        models: {
          "gpt-x": { id: "gpt-x", name: "GPT X", cost: { input: 2.5, output: 10 }, limit: { context: 400_000, output: 128_000 } },
          "text-embedding-9": { id: "text-embedding-9", cost: { input: 0.02, output: 0 } },
        },
      },
    },
    litellm: {
      "gpt-x": { litellm_provider: "openai", mode: "chat", input_cost_per_token: 2.5e-6, output_cost_per_token: 1e-5 },
      "text-embedding-9": {
        litellm_provider: "openai",
        mode: "embedding",
        input_cost_per_token: 2e-8,
        output_cost_per_token: 0,
        max_input_tokens: 8191,
      },
      "gemini/gemini-1.5-flash": { litellm_provider: "gemini", mode: "embedding", input_cost_per_token: 7.5e-8, max_input_tokens: 8192 },
    },
    curatedIds: new Set(["openai/curated-one"]),
    ...overrides,
  };
}

describe("buildInventory on hand-made sources", () => {
  const inventory = buildInventory(sources());
  const byId = new Map(inventory.map((entry) => [entry.id, entry]));

  it("skips curated ids, moving aliases, variable and unconfirmed free prices; sorts by id", () => {
    expect(inventory.map((entry) => entry.id)).toEqual(["acme/old-one", "acme/painter", "openai/gpt-x", "openai/text-embedding-9"]);
  });

  it("puts the direct path first and an OpenRouter path after it, both verified when the sources agree", () => {
    const entry = byId.get("openai/gpt-x")!;
    expect(entry.paths.map((p) => [p.provider, p.upstream_model, p.credentials])).toEqual([
      ["openai", "gpt-x", "OPENAI_API_KEY"],
      ["openrouter", "openai/gpt-x", "OPENROUTER_API_KEY"],
    ]);
    expect(entry.paths.map((p) => [p.price?.input_per_m, p.price?.output_per_m, p.price?.verified])).toEqual([
      ["2.50", "10.00", true],
      ["2.50", "10.00", true],
    ]);
    // The smaller context of the two paths; the newest list's figures.
    expect(entry).toMatchObject({
      owned_by: "openai",
      context_length: 128_000,
      max_output_tokens: 16_384,
      capabilities: { tools: true, json_schema: true, embeddings: false },
    });
  });

  it("keeps an OpenRouter-only price unverified, and takes ids only the older list has", () => {
    expect(byId.get("acme/old-one")!.paths).toEqual([
      {
        provider: "openrouter",
        upstream_model: "acme/old-one",
        credentials: "OPENROUTER_API_KEY",
        price: { input_per_m: "1.00", output_per_m: "1.00", verified: false, source: "unverified: only OpenRouter 2026-05-15" },
      },
    ]);
  });

  it("bills image-generating models' text output at the text rate and their image tokens at the image rate", () => {
    expect(byId.get("acme/painter")!.paths[0]!.price).toMatchObject({
      input_per_m: "1.00",
      output_per_m: "2.00",
      image_output_per_m: "30.00",
    });
    expect(openrouterFigure(orModel("a/b", "0.000001", "0.000002"), "d")!.price.output).toBe(2n * M);
  });

  it("does not take litellm's openrouter/ entry (a copy of OpenRouter's list) as a second source, so a free model it alone confirms is dropped", () => {
    const copied = sources({
      litellm: {
        "openrouter/acme/free-one:free": {
          litellm_provider: "openrouter",
          mode: "chat",
          input_cost_per_token: 0,
          output_cost_per_token: 0,
        },
      },
    });
    expect(buildInventory(copied).find((entry) => entry.id === "acme/free-one:free")).toBeUndefined();
  });

  it("adds embeddings from litellm with output price 0, skipping non-embedding names", () => {
    const embeddings = embeddingEntries(sources());
    expect(embeddings).toEqual([
      {
        id: "openai/text-embedding-9",
        owned_by: "openai",
        context_length: 8191,
        max_output_tokens: 0,
        input_modalities: ["text"],
        output_modalities: ["embeddings"],
        capabilities: { tools: false, json_schema: false, embeddings: true },
        paths: [
          {
            provider: "openai",
            upstream_model: "text-embedding-9",
            credentials: "OPENAI_API_KEY",
            price: {
              input_per_m: "0.02",
              output_per_m: "0.00",
              verified: true,
              source: "verified: models.dev openai/text-embedding-9 = litellm text-embedding-9 (shared/data/catalogue)",
            },
          },
        ],
      },
    ]);
  });

  it("is deterministic: same input, same bytes", () => {
    expect(serializeInventory(buildInventory(sources()))).toBe(serializeInventory(inventory));
  });
});

describe("components on hand-made sources", () => {
  const data = sources({
    openrouter: [
      {
        date: "2026-08-01",
        models: [
          orModel("anthropic/claude-x", "0.000003", "0.000015", {
            pricing: {
              prompt: "0.000003",
              completion: "0.000015",
              input_cache_read: "0.0000003",
              input_cache_write: "0.00000375",
              input_cache_write_1h: "0.000006",
              web_search: "0.01",
              overrides: [{ min_prompt_tokens: 200000, prompt: "0.000006", completion: "0.0000225" }],
            },
          }),
        ],
      },
    ],
    modelsDev: {
      anthropic: {
        models: {
          "claude-x-20250101": {
            id: "claude-x-20250101",
            cost: { input: 3, output: 15, cache_read: 0.3, cache_write: 3.75 },
            limit: { context: 200_000, output: 64_000 },
          },
        },
      },
    },
    litellm: {
      "claude-x-20250101": {
        litellm_provider: "anthropic",
        mode: "chat",
        input_cost_per_token: 3e-6,
        output_cost_per_token: 1.5e-5,
        cache_read_input_token_cost: 3e-7,
        cache_creation_input_token_cost: 3.8e-6, // differs from models.dev's 3.75, which the direct path takes
        cache_creation_input_token_cost_above_1hr: 6e-6,
        input_cost_per_token_above_200k_tokens: 6e-6,
        output_cost_per_token_above_200k_tokens: 2.25e-5,
      },
    },
    curatedIds: new Set(),
  });
  const [direct, openrouter] = buildInventory(data).find((entry) => entry.id === "anthropic/claude-x")!.paths;

  it("prices a direct path's components from the vendor's own lists: models.dev first, litellm for what models.dev lacks", () => {
    expect(direct!.price).toMatchObject({
      cached_input_per_m: "0.30",
      cache_write_5m_per_m: "3.75", // models.dev's
      cache_write_1h_per_m: "6.00", // litellm's
      long_context: { above_input_tokens: 200000, input_per_m: "6.00", output_per_m: "22.50" },
      verified: true,
    });
    expect(direct!.price).not.toHaveProperty("per_web_search"); // OpenRouter's own search price is not the vendor's
    expect(direct!.price!.verified_components).toEqual([
      "input",
      "output",
      "cached_input",
      "cache_write_5m",
      "cache_write_1h",
      "long_context",
    ]);
    expect(direct!.price!.source).toContain(
      "Components: cached_input verified (models.dev = litellm = OpenRouter); cache_write_5m verified (models.dev = OpenRouter; differs: litellm); " +
        "cache_write_1h, long_context verified (litellm = OpenRouter)",
    );
  });

  it("prices an OpenRouter path's components from OpenRouter's own list, verified where a vendor list agrees", () => {
    expect(openrouter!.price).toMatchObject({
      cached_input_per_m: "0.30",
      cache_write_5m_per_m: "3.75",
      cache_write_1h_per_m: "6.00",
      per_web_search: "0.01",
      long_context: { above_input_tokens: 200000, input_per_m: "6.00", output_per_m: "22.50" },
    });
    expect(openrouter!.price!.verified_components).toEqual([
      "input",
      "output",
      "cached_input",
      "cache_write_5m",
      "cache_write_1h",
      "long_context",
    ]);
    expect(openrouter!.price!.source).toContain("web_search unverified (only OpenRouter)");
    expect(openrouter!.price!.source).toContain("cache_write_5m verified (OpenRouter = models.dev; differs: litellm)");
  });

  it("gives no verified_components to a price without components (the normalizer's default: input and output when verified)", () => {
    expect(buildInventory(sources()).find((entry) => entry.id === "openai/gpt-x")!.paths[0]!.price).not.toHaveProperty(
      "verified_components",
    );
  });
});

describe("cloud paths on hand-made sources", () => {
  const claude = orModel("anthropic/claude-x", "0.000003", "0.000015");
  const data = sources({
    openrouter: [{ date: "2026-08-01", models: [claude, orModel("openai/gpt-x", "0.0000025", "0.00001")] }],
    modelsDev: {
      ...sources().modelsDev,
      "amazon-bedrock": {
        models: {
          "us.anthropic.claude-x-20250101-v1:0": { id: "us.anthropic.claude-x-20250101-v1:0", cost: { input: 3, output: 15 } },
          "anthropic.claude-x-20250101-v1:0": { id: "anthropic.claude-x-20250101-v1:0", cost: { input: 3, output: 15 } },
          "eu.anthropic.claude-x-20250101-v1:0": { id: "eu.anthropic.claude-x-20250101-v1:0", cost: { input: 3.3, output: 16.5 } },
        },
      },
      "google-vertex-anthropic": {
        models: {
          "claude-x@20250101": {
            id: "claude-x@20250101",
            cost: { input: 3, output: 15, cache_read: 0.3 },
            limit: { context: 100_000, output: 8_000 },
          },
          "claude-old@20240101": { id: "claude-old@20240101", status: "deprecated", cost: { input: 0.8, output: 4 } },
        },
      },
      azure: { models: { "gpt-x": { id: "gpt-x", cost: { input: 2.5, output: 10 } } } },
    },
    litellm: {
      ...sources().litellm,
      "us.anthropic.claude-x-20250101-v1:0": {
        litellm_provider: "bedrock_converse",
        mode: "chat",
        input_cost_per_token: 3.3e-6,
        output_cost_per_token: 1.65e-5,
      },
      "vertex_ai/claude-x": {
        litellm_provider: "vertex_ai-anthropic_models",
        mode: "chat",
        input_cost_per_token: 1e-6,
        output_cost_per_token: 5e-6,
      },
      "vertex_ai/claude-x@20250101": {
        litellm_provider: "vertex_ai-anthropic_models",
        mode: "chat",
        input_cost_per_token: 3e-6,
        output_cost_per_token: 1.5e-5,
        cache_read_input_token_cost: 3e-7,
      },
      "vertex_ai/claude-old": {
        litellm_provider: "vertex_ai-anthropic_models",
        mode: "chat",
        input_cost_per_token: 1e-6,
        output_cost_per_token: 5e-6,
      },
      "vertex_ai/claude-old@20240101": {
        litellm_provider: "vertex_ai-anthropic_models",
        mode: "chat",
        input_cost_per_token: 1e-6,
        output_cost_per_token: 5e-6,
      },
      "azure/gpt-x": { litellm_provider: "azure", mode: "chat", input_cost_per_token: 2.75e-6, output_cost_per_token: 1.1e-5 },
      "azure/global-standard/gpt-x": { litellm_provider: "azure", mode: "chat", input_cost_per_token: 2.5e-6, output_cost_per_token: 1e-5 },
    },
    curatedIds: new Set(),
  });
  const byId = new Map(buildInventory(data).map((entry) => [entry.id, entry]));

  it("puts the clouds' paths between the direct one and OpenRouter's, without credentials", () => {
    expect(byId.get("anthropic/claude-x")!.paths.map((p) => [p.provider, p.upstream_model, p.credentials])).toEqual([
      ["bedrock", "us.anthropic.claude-x-20250101-v1:0", undefined], // the US profile, not the in-region id nor eu.
      ["vertex", "claude-x@20250101", undefined], // the pinned id, not the alias
      ["openrouter", "anthropic/claude-x", "OPENROUTER_API_KEY"],
    ]);
    expect(byId.get("openai/gpt-x")!.paths.map((p) => [p.provider, p.upstream_model])).toEqual([
      ["openai", "gpt-x"],
      ["azure", "gpt-x"],
      ["openrouter", "openai/gpt-x"],
    ]);
  });

  it("prices each with the cloud's own figures: Bedrock litellm's first, Vertex and Azure models.dev's first; verified when the other agrees", () => {
    const [bedrock, vertex] = byId.get("anthropic/claude-x")!.paths;
    expect(bedrock!.price).toMatchObject({ input_per_m: "3.30", output_per_m: "16.50", verified: false });
    expect(bedrock!.price!.source).toBe(
      "unverified: only litellm us.anthropic.claude-x-20250101-v1:0; differs: models.dev amazon-bedrock/us.anthropic.claude-x-20250101-v1:0 3.00/15.00",
    );
    expect(vertex!.price).toMatchObject({ input_per_m: "3.00", cached_input_per_m: "0.30", verified: true });
    expect(vertex!.price!.verified_components).toEqual(["input", "output", "cached_input"]);
    // Azure: litellm's Global key, not the bare azure/gpt-x (a regional price).
    expect(byId.get("openai/gpt-x")!.paths[1]!.price!.source).toBe(
      "verified: models.dev azure/gpt-x = litellm azure/global-standard/gpt-x (shared/data/catalogue)",
    );
  });

  it("never takes the vendor's or OpenRouter's figure as a second source for a cloud's price", () => {
    // OpenRouter and the vendor's lists say 3 / 15, as models.dev's Bedrock entry does; litellm's Bedrock entry alone is charged.
    const [bedrock] = cloudPaths(claude, data);
    expect(bedrock!.path.price!.source).not.toMatch(/OpenRouter|models\.dev anthropic\//);
  });

  it("gives no path where models.dev marks the model deprecated on that cloud, its alias included", () => {
    expect(cloudPaths(orModel("anthropic/claude-old", "0.000001", "0.000005"), data)).toEqual([]);
  });

  it("reads Bedrock ids as [geography.]vendor.model[-vN][:N], keeping a number that is the model's own", () => {
    const lists = {
      openrouter: [],
      modelsDev: {},
      litellm: Object.fromEntries(
        ["anthropic.claude-opus-4-6-v1", "us.anthropic.claude-opus-4-6-v1", "eu.anthropic.claude-x-v1:0", "amazon.nova-lite-v1:0"]
          .concat(["openai.gpt-oss-120b-1:0", "meta.llama3-3-70b-instruct-v1:0"])
          .map((id) => [id, { litellm_provider: "bedrock", mode: "chat", input_cost_per_token: 1e-6, output_cost_per_token: 1e-6 }]),
      ),
    };
    expect(cloudModels("bedrock", "anthropic", lists)).toEqual([
      // us. wins over the in-region id; eu. alone is no path of the us-east-1 provider.
      { upstreamModel: "us.anthropic.claude-opus-4-6-v1", keys: ["claude-opus-4-6", "claude-opus-4-6-v1"] },
    ]);
    expect(cloudModels("bedrock", "amazon", lists)).toEqual([
      { upstreamModel: "amazon.nova-lite-v1:0", keys: ["nova-lite", "nova-lite-v1"] },
    ]);
    expect(cloudModels("bedrock", "openai", lists)).toEqual([
      { upstreamModel: "openai.gpt-oss-120b-1:0", keys: ["gpt-oss-120b", "gpt-oss-120b-1"] },
    ]);
    expect(cloudModels("bedrock", "meta-llama", lists).map((model) => model.upstreamModel)).toEqual(["meta.llama3-3-70b-instruct-v1:0"]);
  });

  it("takes the smallest context among the paths, a cloud's included", () => {
    expect(byId.get("anthropic/claude-x")).toMatchObject({ context_length: 100_000, max_output_tokens: 8_000 });
  });
});

describe("readSources and checkInventory on an excerpt of the public lists (test/fixtures/catalogue)", () => {
  const EXCERPT_DIR = path.resolve(import.meta.dirname, "../fixtures/catalogue");
  const sources = readSources(EXCERPT_DIR);
  const inventory = buildInventory(sources);
  const scratch = mkdtempSync(path.join(os.tmpdir(), "inventory-check-"));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it("reads both OpenRouter lists (newest first), models.dev and litellm without its sample_spec", () => {
    expect(sources.openrouter.map((list) => [list.date, list.models.length])).toEqual([
      ["2026-08-01", 7],
      ["2026-05-15", 2],
    ]);
    expect(Object.keys(sources.modelsDev).sort()).toEqual([
      "amazon-bedrock",
      "anthropic",
      "azure",
      "google-vertex-anthropic",
      "openai",
      "openrouter",
    ]);
    expect(sources.litellm).not.toHaveProperty("sample_spec");
    expect(sources.litellm).toHaveProperty("gpt-4o");
    expect(sources.curatedIds.has("openai/gpt-4o-mini")).toBe(true); // from the committed default-catalogue.json
  });

  it("builds the inventory: curated ids, ~ aliases, variable prices and unconfirmed free models left out", () => {
    // Left out: openai/gpt-4o-mini and text-embedding-3-small (curated), ~openai/gpt-latest, openrouter/auto, openai/gpt-oss-20b:free.
    expect(inventory.map((entry) => entry.id)).toEqual([
      "anthropic/claude-sonnet-4.5",
      "openai/gpt-4o",
      "openai/gpt-4o-2024-05-13", // a dated id keeps its own (dearer) native model
      "openai/gpt-5-codex", // only in the older list
      "openai/text-embedding-3-large", // from litellm
    ]);
    expect(
      inventory.map((entry) => [entry.id, entry.paths.map((p) => [p.provider, p.upstream_model, p.price?.input_per_m, p.price?.verified])]),
    ).toEqual([
      [
        "anthropic/claude-sonnet-4.5",
        [
          ["anthropic", "claude-sonnet-4-5-20250929", "3.00", true],
          // The US inference profile (not global.), at litellm's price for it; models.dev says 3.00: unverified.
          ["bedrock", "us.anthropic.claude-sonnet-4-5-20250929-v1:0", "3.30", false],
          // The pinned id, not litellm's alias vertex_ai/claude-sonnet-4-5.
          ["vertex", "claude-sonnet-4-5@20250929", "3.00", true],
          ["openrouter", "anthropic/claude-sonnet-4.5", "3.00", true],
        ],
      ],
      [
        "openai/gpt-4o",
        [
          ["openai", "gpt-4o", "2.50", true],
          ["azure", "gpt-4o", "2.50", true],
          ["openrouter", "openai/gpt-4o", "2.50", true],
        ],
      ],
      [
        "openai/gpt-4o-2024-05-13",
        [
          ["openai", "gpt-4o-2024-05-13", "5.00", true],
          ["openrouter", "openai/gpt-4o-2024-05-13", "5.00", true],
        ],
      ],
      [
        "openai/gpt-5-codex",
        [
          ["openai", "gpt-5-codex", "1.25", true],
          ["openrouter", "openai/gpt-5-codex", "1.25", true],
        ],
      ],
      [
        "openai/text-embedding-3-large",
        [
          ["openai", "text-embedding-3-large", "0.13", true],
          ["azure", "text-embedding-3-large", "0.13", true],
        ],
      ],
    ]);
    // models.dev's openrouter provider and litellm's openrouter/ entries copy OpenRouter's list: never a second source.
    const sourcesText = inventory.flatMap((entry) => entry.paths.map((p) => p.price?.source ?? ""));
    expect(sourcesText.filter((text) => /models\.dev openrouter|litellm openrouter\//.test(text))).toEqual([]);
  });

  it("--check passes when the file is what the generator makes, and reports a stale or missing one", () => {
    const file = path.join(scratch, "inventory.json");
    writeFileSync(file, serializeInventory(inventory));
    expect(checkInventory(EXCERPT_DIR, file)).toMatchObject({ ok: true, ran: true, message: expect.stringContaining("is up to date") });
    writeFileSync(file, serializeInventory(inventory.slice(1)));
    expect(checkInventory(EXCERPT_DIR, file)).toMatchObject({ ok: false, ran: true, message: expect.stringContaining("is stale") });
    expect(checkInventory(EXCERPT_DIR, path.join(scratch, "none.json"))).toMatchObject({ ok: false, ran: true });
  });

  it("--check without its input says plainly that it did not run (and does not fail the build)", () => {
    const absent = path.join(scratch, "absent");
    expect(checkInventory(absent, path.join(scratch, "inventory.json"))).toEqual({
      ok: true,
      ran: false,
      message: expect.stringMatching(/^inventory check did not run: .*absent is absent, so .*inventory\.json was not compared$/),
    });
  });
});

describe("the committed inventory.json", () => {
  const inventory = readJson<CatalogueModelEntry[]>("inventory.json");
  const curated = readJson<CatalogueFile>("default-catalogue.json");

  it("has several hundred entries, sorted, none of them curated", () => {
    expect(inventory.length).toBeGreaterThanOrEqual(300);
    const ids = inventory.map((entry) => entry.id);
    expect(ids).toEqual([...ids].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
    const curatedIds = new Set(curated.models.map((model) => model.id));
    expect(ids.filter((id) => curatedIds.has(id))).toEqual([]);
  });

  it("names, on every path of it and of the curated catalogue, a key variable the data plane's docs name for that provider; none on a cloud's", () => {
    const expected: Record<string, string | undefined> = {
      openai: "OPENAI_API_KEY",
      anthropic: "ANTHROPIC_API_KEY",
      google: "GOOGLE_API_KEY",
      openrouter: "OPENROUTER_API_KEY",
      // Each cloud's own credential chain (AWS, Google ADC, Azure's api-key or Entra ID) authenticates its calls.
      bedrock: undefined,
      vertex: undefined,
      azure: undefined,
    };
    const named = [...curated.models, ...inventory].flatMap((entry) => entry.paths.map((path) => [path.provider, path.credentials]));
    expect(named.filter(([provider, credentials]) => !(provider! in expected) || credentials !== expected[provider!])).toEqual([]);
  });

  it("passes normalizeCatalogue appended to the default catalogue, as inventory with empty tiers and purposes", () => {
    const models = normalizeCatalogue(withInventory(curated, inventory));
    expect(models).toHaveLength(curated.models.length + inventory.length);
    const appended = models.filter((model) => !model.curated);
    expect(appended.map((model) => model.id)).toEqual(inventory.map((entry) => entry.id));
    expect(appended.every((model) => model.tiers.length === 0 && model.purposes.length === 0 && model.paths.length > 0)).toBe(true);
    // Every path can price a call: input and output present.
    expect(appended.every((model) => model.paths.every((p) => p.inputNanoPerM !== null && p.outputNanoPerM !== null))).toBe(true);
  });

  const path = (id: string, provider: string) => inventory.find((entry) => entry.id === id)!.paths.find((p) => p.provider === provider)!;

  it("prices Claude Sonnet 4.5 direct with Anthropic's cache and long-context prices, verified by two publishers", () => {
    // anthropic/claude-sonnet-4 is curated (default-catalogue.json); 4.5 has the same prices.
    expect(path("anthropic/claude-sonnet-4.5", "anthropic").price).toMatchObject({
      input_per_m: "3.00",
      output_per_m: "15.00",
      cached_input_per_m: "0.30",
      cache_write_5m_per_m: "3.75",
      cache_write_1h_per_m: "6.00",
      long_context: { above_input_tokens: 200000, input_per_m: "6.00", output_per_m: "22.50" },
      verified: true,
      verified_components: expect.arrayContaining(["cached_input", "cache_write_5m", "cache_write_1h", "long_context"]),
    });
  });

  it("prices Claude Sonnet 4.5 on the clouds: Vertex verified by two publishers, Bedrock's US profile at litellm's 10% dearer figure", () => {
    expect(path("anthropic/claude-sonnet-4.5", "vertex")).toMatchObject({
      upstream_model: "claude-sonnet-4-5@20250929",
      price: { input_per_m: "3.00", output_per_m: "15.00", cached_input_per_m: "0.30", cache_write_5m_per_m: "3.75", verified: true },
    });
    expect(path("anthropic/claude-sonnet-4.5", "bedrock")).toMatchObject({
      upstream_model: "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
      price: { input_per_m: "3.30", output_per_m: "16.50", verified: false },
    });
  });

  it("prices GPT-4o on Azure at the Global deployment price, verified by models.dev and litellm", () => {
    expect(path("openai/gpt-4o", "azure")).toMatchObject({
      upstream_model: "gpt-4o",
      price: { input_per_m: "2.50", output_per_m: "10.00", cached_input_per_m: "1.25", verified: true },
    });
  });

  it("prices Gemini 2.5 Pro direct with its long context above 200k", () => {
    expect(path("google/gemini-2.5-pro", "google").price).toMatchObject({
      cached_input_per_m: "0.125",
      long_context: { above_input_tokens: 200000, input_per_m: "2.50", output_per_m: "15.00", cached_input_per_m: "0.25" },
      verified_components: expect.arrayContaining(["cached_input", "long_context"]),
    });
  });

  it("prices GPT-5 direct with its priority and flex tiers (litellm's figures, no second publisher: unverified)", () => {
    const price = path("openai/gpt-5", "openai").price!;
    expect(price.service_tiers).toEqual({
      priority: { input_per_m: "2.50", output_per_m: "20.00", cached_input_per_m: "0.25" },
      flex: { input_per_m: "0.625", output_per_m: "5.00", cached_input_per_m: "0.0625" },
    });
    expect(price.verified_components).not.toContain("service_tiers");
  });

  it("prices GPT-5.4's long context above 272k on both paths", () => {
    for (const provider of ["openai", "openrouter"])
      expect(path("openai/gpt-5.4", provider).price!.long_context).toEqual({
        above_input_tokens: 272000,
        input_per_m: "5.00",
        output_per_m: "22.50",
        cached_input_per_m: "0.50",
      });
  });

  it("lists in verified_components only components the price has", () => {
    for (const price of inventory.flatMap((entry) => entry.paths.map((p) => p.price!)))
      for (const component of price.verified_components ?? [])
        expect(Object.keys(price).some((key) => key === component || key === `${component}_per_m` || key === `per_${component}`)).toBe(
          true,
        );
  });

  it("marks verified prices with their agreeing sources", () => {
    const verified = inventory.flatMap((entry) => entry.paths).filter((p) => p.price?.verified);
    expect(verified.length).toBeGreaterThan(0);
    expect(verified.every((p) => p.price!.source!.startsWith("verified: ") && p.price!.source!.includes(" = "))).toBe(true);
  });
});
