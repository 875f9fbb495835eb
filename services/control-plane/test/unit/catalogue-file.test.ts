import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { TIERS, type CatalogueFile, type CatalogueModelEntry } from "../../src/catalogue/catalogue-file";
import { readInventory, withInventory } from "../../src/catalogue/load-default-catalogue";
import { normalizeCatalogue } from "../../src/catalogue/normalize-catalogue";
import { GatewayError } from "@gateway/proto";

const DEFAULT_CATALOGUE = path.resolve(import.meta.dirname, "../../src/catalogue/default-catalogue.json");
const loadDefault = (): CatalogueFile => JSON.parse(readFileSync(DEFAULT_CATALOGUE, "utf8")) as CatalogueFile;

const chatModel = (id: string, extra: Partial<CatalogueModelEntry> = {}): CatalogueModelEntry => ({
  id,
  context_length: 128_000,
  max_output_tokens: 16_384,
  paths: [
    {
      provider: id.split("/")[0]!,
      upstream_model: id.split("/")[1]!,
      price: { input_per_m: "0.15", output_per_m: "0.60", verified: true },
    },
  ],
  ...extra,
});

const embeddingsModel = (id: string, extra: Partial<CatalogueModelEntry> = {}): CatalogueModelEntry =>
  chatModel(id, {
    capabilities: { embeddings: true },
    max_output_tokens: 0,
    paths: [{ provider: "openai", upstream_model: "emb", price: { input_per_m: "0.02", verified: true } }],
    ...extra,
  });

function file(overrides: Partial<CatalogueFile> = {}): CatalogueFile {
  return {
    version: 1,
    defaults: { embeddings: "v/embed" },
    models: [
      chatModel("v/economy", { tiers: ["economy"] }),
      chatModel("v/balanced", { tiers: ["balanced"] }),
      chatModel("v/quality", { tiers: ["quality"] }),
      embeddingsModel("v/embed"),
    ],
    ...overrides,
  };
}

function rejection(fn: () => unknown): GatewayError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(GatewayError);
    return error as GatewayError;
  }
  throw new Error("expected a GatewayError, nothing was thrown");
}

describe("normalizeCatalogue on the default catalogue", () => {
  const source = loadDefault();
  const models = normalizeCatalogue(source);
  const byId = new Map(models.map((model) => [model.id, model]));

  it("keeps every model of the file, curated, in file order", () => {
    expect(models.map((model) => [model.id, model.curated, model.position])).toEqual(
      source.models.map((model, index) => [model.id, true, index]),
    );
  });

  it.each([...TIERS])("covers the %s tier with at least one curated model", (tier) => {
    expect(models.filter((model) => model.curated && model.tiers.includes(tier)).length).toBeGreaterThan(0);
  });

  it("has an embeddings model as embeddings default", () => {
    expect(byId.get(source.defaults.embeddings)).toMatchObject({ embeddings: true, outputModalities: ["embeddings"] });
  });

  it.each<[string, bigint | null, bigint | null]>([
    ["openai/gpt-4.1-nano", 100_000_000n, 400_000_000n],
    ["openai/gpt-4o-mini", 150_000_000n, 600_000_000n],
    ["openai/gpt-4.1-mini", 400_000_000n, 1_600_000_000n],
    ["openai/gpt-4.1", 2_000_000_000n, 8_000_000_000n],
    ["openai/text-embedding-3-small", 20_000_000n, 0n],
  ])("converts the prices of %s exactly", (id, input, output) => {
    const first = byId.get(id)!.paths[0]!;
    expect({ input: first.inputNanoPerM, output: first.outputNanoPerM, image: first.imageNano, request: first.requestNano }).toEqual({
      input,
      output,
      image: null,
      request: null,
    });
  });

  it("converts the components of Claude Sonnet 4's direct path: cache prices, the long-context tier, the verified ones", () => {
    expect(byId.get("anthropic/claude-sonnet-4")!.paths[0]!.priceComponents).toEqual({
      cached_input: "300000000",
      cache_write_5m: "3750000000",
      cache_write_1h: "6000000000",
      web_search: "10000000",
      long_context: {
        above_input_tokens: 200000,
        input: "6000000000",
        output: "22500000000",
        cached_input: "600000000",
        cache_write_5m: "7500000000",
        cache_write_1h: "12000000000",
      },
      verified_components: ["input", "output", "cached_input", "cache_write_5m", "cache_write_1h"],
    });
  });

  it("converts an OpenAI path's cached input and priority tier", () => {
    expect(byId.get("openai/gpt-4.1")!.paths[0]!.priceComponents).toEqual({
      cached_input: "500000000",
      service_tiers: { priority: { input: "3500000000", output: "14000000000", cached_input: "875000000" } },
      verified_components: ["input", "output"],
    });
  });

  it("maps path fields", () => {
    expect(byId.get("openai/gpt-4.1-mini")!.paths[0]).toMatchObject({
      provider: "openai",
      upstreamModel: "gpt-4.1-mini",
      credentialsRef: "OPENAI_API_KEY",
      priceVerified: true,
    });
  });
});

describe("normalizeCatalogue conversions", () => {
  it("applies defaults for optional fields", () => {
    const [first] = normalizeCatalogue(file());
    expect(first).toEqual({
      id: "v/economy",
      curated: true,
      position: 0,
      tiers: ["economy"],
      purposes: [],
      ownedBy: "v",
      created: 0,
      contextLength: 128_000,
      maxOutputTokens: 16_384,
      inputModalities: ["text"],
      outputModalities: ["text"],
      tools: false,
      jsonSchema: false,
      embeddings: false,
      paths: [
        {
          provider: "v",
          upstreamModel: "economy",
          credentialsRef: null,
          inputNanoPerM: 150_000_000n,
          outputNanoPerM: 600_000_000n,
          imageNano: null,
          requestNano: null,
          priceVerified: true,
          priceSource: null,
          priceComponents: { verified_components: ["input", "output"] },
        },
      ],
    });
  });

  it("defaults an embeddings model's output modality to embeddings", () => {
    expect(normalizeCatalogue(file()).find((model) => model.id === "v/embed")!.outputModalities).toEqual(["embeddings"]);
  });

  it("converts image and request prices and a missing price to nulls", () => {
    const models = file().models;
    models.push(
      chatModel("v/img", {
        paths: [
          { provider: "v", upstream_model: "img", price: { per_image: "0.04", per_request: "0.000000001", verified: false, source: "s" } },
        ],
      }),
      chatModel("v/free", { paths: [{ provider: "v", upstream_model: "free" }] }),
    );
    const normalized = normalizeCatalogue(file({ models }));
    expect(normalized.find((model) => model.id === "v/img")!.paths[0]).toMatchObject({
      inputNanoPerM: null,
      outputNanoPerM: null,
      imageNano: 40_000_000n,
      requestNano: 1n,
      priceVerified: false,
      priceSource: "s",
    });
    expect(normalized.find((model) => model.id === "v/free")!.paths[0]).toMatchObject({
      inputNanoPerM: null,
      outputNanoPerM: null,
      imageNano: null,
      requestNano: null,
      priceVerified: false,
      priceSource: null,
    });
  });

  it("gives inventory entries empty tiers and purposes even when the file gives some", () => {
    const normalized = normalizeCatalogue(file({ inventory: [chatModel("w/inv", { tiers: ["quality"], purposes: ["code"] })] }));
    expect(normalized.at(-1)).toMatchObject({ id: "w/inv", curated: false, tiers: [], purposes: [] });
  });

  it("numbers positions in file order: curated first, then inventory", () => {
    const normalized = normalizeCatalogue(file({ inventory: [chatModel("w/inv-b"), chatModel("w/inv-a")] }));
    expect(normalized.map((model) => [model.id, model.position, model.curated])).toEqual([
      ["v/economy", 0, true],
      ["v/balanced", 1, true],
      ["v/quality", 2, true],
      ["v/embed", 3, true],
      ["w/inv-b", 4, false],
      ["w/inv-a", 5, false],
    ]);
  });

  it("accepts an inventory embeddings model as the embeddings default", () => {
    const normalized = normalizeCatalogue(
      file({ defaults: { ...file().defaults, embeddings: "w/emb" }, inventory: [embeddingsModel("w/emb")] }),
    );
    expect(normalized.at(-1)).toMatchObject({ id: "w/emb", curated: false, embeddings: true });
  });
});

describe("normalizeCatalogue rejections", () => {
  it.each<[string, () => CatalogueFile, string]>([
    ["duplicate curated id", () => file({ models: [...file().models, chatModel("v/balanced")] }), "model v/balanced appears twice"],
    ["id both curated and inventory", () => file({ inventory: [chatModel("v/quality")] }), "model v/quality appears twice"],
    [
      "a tier without a curated model",
      () => file({ models: file().models.filter((model) => model.id !== "v/balanced") }),
      "no curated chat model with input and output prices is in the balanced tier",
    ],
    [
      "a tier covered only by an embeddings model",
      () =>
        file({
          models: [...file().models.filter((model) => model.id !== "v/quality"), embeddingsModel("v/embed-q", { tiers: ["quality"] })],
        }),
      "no curated chat model with input and output prices is in the quality tier",
    ],
    ["ids differing only in case", () => file({ models: [...file().models, chatModel("V/Balanced")] }), "model V/Balanced appears twice"],
    [
      "a tier covered only by an inventory model",
      () =>
        file({
          models: file().models.filter((model) => model.id !== "v/economy"),
          inventory: [chatModel("w/inv", { tiers: ["economy"] })],
        }),
      "no curated chat model with input and output prices is in the economy tier",
    ],
    [
      "embeddings default that is a chat model",
      () => file({ defaults: { ...file().defaults, embeddings: "v/balanced" } }),
      "defaults.embeddings names v/balanced, which is not an embeddings model of the file",
    ],
    [
      "embeddings default missing",
      () => file({ defaults: { ...file().defaults, embeddings: "v/none" } }),
      "defaults.embeddings names v/none, which is not an embeddings model of the file",
    ],
  ])("rejects %s", (_name, build, message) => {
    const error = rejection(() => normalizeCatalogue(build()));
    expect({ type: error.type, code: error.code, status: error.status, message: error.message }).toEqual({
      type: "invalid_request_error",
      code: "invalid_request",
      status: 400,
      message,
    });
  });

  const componentRejection = (price: Record<string, unknown>) => {
    const models = file().models;
    models.push(chatModel("v/parts", { paths: [{ provider: "v", upstream_model: "parts", price: price as never }] }));
    const error = rejection(() => normalizeCatalogue(file({ models })));
    return { status: error.status, code: error.code, message: error.message };
  };
  const base = { input_per_m: "1.00", output_per_m: "2.00" };

  it.each<[string, Record<string, unknown>, string]>([
    [
      "verified_components naming a component the path does not price",
      { ...base, verified: true, verified_components: ["input", "output", "cached_input"] },
      "v/parts path 0 verified_components: cached_input has no price",
    ],
    [
      "verified_components naming an absent long-context tier",
      { ...base, verified: false, verified_components: ["long_context"] },
      "v/parts path 0 verified_components: long_context has no price",
    ],
    [
      "a verified price whose verified_components leave out input or output",
      { ...base, cached_input_per_m: "0.10", verified: true, verified_components: ["cached_input"] },
      "v/parts path 0 verified_components: a verified price lists input and output",
    ],
    [
      "a long-context tier without rates",
      { ...base, verified: false, long_context: { above_input_tokens: 200000 } },
      "v/parts path 0 long_context: gives no rate",
    ],
    [
      "a service tier without rates",
      { ...base, verified: false, service_tiers: { priority: { input_per_m: "2.00" }, flex: {} } },
      "v/parts path 0 service_tiers.flex: gives no rate",
    ],
    [
      "a bad decimal in a component",
      { ...base, verified: false, cached_input_per_m: "0.1.0" },
      'v/parts path 0 cached_input_per_m: "0.1.0" is not a USD amount',
    ],
    [
      "a bad decimal in a unit price",
      { ...base, verified: false, per_web_search: "1e-2" },
      'v/parts path 0 per_web_search: "1e-2" is not a USD amount',
    ],
    [
      "a bad decimal in a long-context rate",
      { ...base, verified: false, long_context: { above_input_tokens: 200000, output_per_m: "-3" } },
      'v/parts path 0 long_context output_per_m: "-3" is not a USD amount',
    ],
    [
      "a bad decimal in a service tier's rate",
      { ...base, verified: false, service_tiers: { priority: { cached_input_per_m: "0.0000000001" } } },
      'v/parts path 0 service_tiers.priority cached_input_per_m: "0.0000000001" is not a USD amount',
    ],
  ])("rejects %s", (_name, price, message) => {
    expect(componentRejection(price)).toEqual({ status: 400, code: "invalid_request", message });
  });

  it("accepts components with exactly the verified ones listed, and defaults verified_components to input and output", () => {
    const models = file().models;
    models.push(
      chatModel("v/parts", {
        paths: [
          {
            provider: "v",
            upstream_model: "parts",
            price: {
              ...base,
              cached_input_per_m: "0.10",
              long_context: { above_input_tokens: 128000, input_per_m: "2.00" },
              service_tiers: { flex: { input_per_m: "0.50" } },
              verified: true,
              verified_components: ["input", "output", "long_context"],
            },
          },
        ],
      }),
    );
    const parts = normalizeCatalogue(file({ models })).find((model) => model.id === "v/parts")!.paths[0]!;
    expect(parts.priceComponents).toEqual({
      cached_input: "100000000",
      long_context: { above_input_tokens: 128000, input: "2000000000" },
      service_tiers: { flex: { input: "500000000" } },
      verified_components: ["input", "output", "long_context"],
    });
  });

  it.each<[string, string]>([
    ["input_per_m", "abc"],
    ["output_per_m", "-1"],
    ["per_image", "1e-3"],
    ["per_request", "0.0000000001"],
    ["input_per_m", "$0.15"],
  ])("rejects invalid price text in %s: %j", (field, text) => {
    const models = file().models;
    models.push(
      chatModel("v/bad", {
        paths: [
          { provider: "v", upstream_model: "ok", price: { verified: true } },
          { provider: "v", upstream_model: "bad", price: { verified: true, [field]: text } },
        ],
      }),
    );
    const error = rejection(() => normalizeCatalogue(file({ models })));
    expect({ type: error.type, code: error.code, status: error.status, message: error.message }).toEqual({
      type: "invalid_request_error",
      code: "invalid_request",
      status: 400,
      message: `v/bad path 1: "${text}" is not a USD amount`,
    });
  });
});

describe("normalizeCatalogue: a path's credentials are its own provider's", () => {
  /** The file with one more model whose paths are these (provider, credentials) pairs. */
  const withPaths = (...paths: [string, string | undefined][]) =>
    file({
      models: [
        ...file().models,
        chatModel("v/keyed", {
          paths: paths.map(([provider, credentials], index) => ({
            provider,
            upstream_model: `m${index}`,
            ...(credentials === undefined ? {} : { credentials }),
            price: { input_per_m: "1", output_per_m: "2", verified: true },
          })),
        }),
      ],
    });
  const problems = (catalogue: CatalogueFile) => {
    try {
      normalizeCatalogue(catalogue);
      return [];
    } catch (error) {
      return (error as { problems: { pointer: string; message: string }[] }).problems;
    }
  };

  it("accepts <PROVIDER>_API_KEY, <PROVIDER>_<NAME>_API_KEY and no credentials", () => {
    expect(problems(withPaths(["v", "V_API_KEY"], ["v", "V_BATCH_API_KEY"], ["my-vendor", "MY_VENDOR_API_KEY"], ["v", undefined]))).toEqual(
      [],
    );
  });

  it("refuses another provider's key, naming its owner, and a variable that is no provider's", () => {
    expect(problems(withPaths(["v", "V_API_KEY"], ["openai", "OPENAI_API_KEY"], ["mistral", "OPENAI_API_KEY"]))).toEqual([
      {
        pointer: "/models/4/paths/2/credentials",
        model: "v/keyed",
        message:
          "v/keyed path 2: credentials OPENAI_API_KEY belong to provider openai, not mistral's (MISTRAL_API_KEY or MISTRAL_<NAME>_API_KEY)",
      },
    ]);
    expect(problems(withPaths(["v", "ANTHROPIC_API_KEY"]))[0]?.message).toBe(
      "v/keyed path 0: credentials ANTHROPIC_API_KEY name no provider's key, not v's (V_API_KEY or V_<NAME>_API_KEY)",
    );
    for (const variable of ["v_api_key", "V_API_KEY_2", "V__API_KEY", "VX_API_KEY", "API_KEY"])
      expect(problems(withPaths(["v", variable])), variable).toHaveLength(1);
  });

  it("gives a variable to the provider whose name it spells the longest", () => {
    // OPENAI_EU_API_KEY is openai-eu's once the file has that provider; without it, a second key of openai's.
    expect(problems(withPaths(["openai-eu", "OPENAI_EU_API_KEY"], ["openai", "OPENAI_API_KEY"]))).toEqual([]);
    expect(problems(withPaths(["openai", "OPENAI_EU_API_KEY"]))).toEqual([]);
    expect(problems(withPaths(["openai-eu", "OPENAI_EU_API_KEY"], ["openai", "OPENAI_EU_BATCH_API_KEY"]))).toMatchObject([
      { pointer: "/models/4/paths/1/credentials", message: expect.stringContaining("belong to provider openai-eu, not openai's") },
    ]);
  });

  it("holds for the default catalogue and its inventory", () => {
    expect(problems(withInventory(loadDefault(), readInventory()))).toEqual([]);
  });
});
