import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { normalizeCatalogue, TIERS, type CatalogueFile, type CatalogueModelEntry } from "../../src/catalogue/catalogue-file";
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
