import type { Catalogue__Output, Model__Output } from "@gateway/proto";
import { describe, expect, it } from "vitest";
import { thrown } from "../support/thrown";
import { protoPrice } from "../support/catalogue-model";
import { buildSnapshot, type CatalogueSnapshot } from "../../src/catalogue/catalogue-snapshot";
import { resolveModel, type Tier } from "../../src/routing/resolve-model";

function model(id: string, overrides: Partial<Model__Output> = {}): Model__Output {
  const [provider, upstream] = [id.split("/")[0]!, id.slice(id.indexOf("/") + 1)];
  return {
    id,
    curated: true,
    tiers: [],
    purposes: ["chat"],
    ownedBy: provider,
    created: "1744675200",
    contextLength: 128_000,
    maxOutputTokens: 16_384,
    inputModalities: ["text"],
    outputModalities: ["text"],
    tools: true,
    jsonSchema: true,
    embeddings: false,
    paths: [
      {
        provider,
        upstreamModel: upstream,
        credentialsRef: `${provider.toUpperCase()}_API_KEY`,
        price: protoPrice("400000000", "1600000000"),
      },
    ],
    ...overrides,
  };
}

function catalogue(embeddings = "openai/text-embedding-3-small"): CatalogueSnapshot {
  const input: Catalogue__Output = {
    revision: "rev-1",
    models: [
      model("openai/gpt-4.1-nano", { tiers: ["economy"] }),
      model("openai/gpt-4.1-mini", { tiers: ["balanced"] }),
      model("openai/gpt-4.1", { tiers: ["quality"] }),
      model("openai/gpt-4o-mini"),
      model("openai/text-embedding-3-small", { embeddings: true, outputModalities: ["embeddings"], maxOutputTokens: 0 }),
      model("azure/gpt-4o-mini", { curated: false }),
      model("meta-llama/llama-3.3-70b-instruct", { curated: false }),
    ],
    defaults: { embeddings },
  };
  return buildSnapshot(input);
}

const chat = { endpoint: "chat" as const, serviceTier: undefined };

describe("buildSnapshot", () => {
  it("converts proto strings to numbers and bigints", () => {
    const snapshot = catalogue();
    const entry = snapshot.byId.get("openai/gpt-4.1-mini")!;
    expect(entry.created).toBe(1744675200);
    expect(entry.paths[0]!.price).toEqual({
      inputNanoPerM: 400_000_000n,
      outputNanoPerM: 1_600_000_000n,
      imageNano: null,
      requestNano: null,
      verified: true,
      source: "test",
      rates: {},
      inputImageNano: null,
      webSearchNano: null,
      longContext: null,
      serviceTiers: new Map(),
      verifiedComponents: [],
    });
  });

  it("indexes bare names lower-cased, grouping ids that share one", () => {
    expect(
      catalogue()
        .byBareName.get("gpt-4o-mini")!
        .map((entry) => entry.id),
    ).toEqual(["openai/gpt-4o-mini", "azure/gpt-4o-mini"]);
  });

  it("gives a path without a price null prices and an unverified empty source", () => {
    const snapshot = buildSnapshot({
      revision: "r",
      models: [model("x/y", { paths: [{ provider: "x", upstreamModel: "y", credentialsRef: "", price: null }] })],
      defaults: null,
    });
    expect(snapshot.byId.get("x/y")!.paths[0]!.price).toEqual({
      inputNanoPerM: null,
      outputNanoPerM: null,
      imageNano: null,
      requestNano: null,
      verified: false,
      source: "",
      rates: {},
      inputImageNano: null,
      webSearchNano: null,
      longContext: null,
      serviceTiers: new Map(),
      verifiedComponents: [],
    });
    expect(snapshot.defaults).toEqual({ embeddings: "" });
  });
});

describe("resolveModel successes", () => {
  it.each<[string, string, "chat" | "embeddings", Tier | undefined, string]>([
    ["auto -> the balanced tier", "auto", "chat", undefined, "tier balanced"],
    ["auto with service tier economy", "auto", "chat", "economy", "tier economy"],
    ["auto with service tier quality", "auto", "chat", "quality", "tier quality"],
    ["auto:quality", "auto:quality", "chat", undefined, "tier quality"],
    ["auto:economy overrides the service tier", "auto:economy", "chat", "quality", "tier economy"],
    ["auto on embeddings", "auto", "embeddings", undefined, "openai/text-embedding-3-small"],
    ["auto on embeddings ignores the service tier", "auto", "embeddings", "quality", "openai/text-embedding-3-small"],
    ["concrete listed id", "openai/gpt-4o-mini", "chat", undefined, "openai/gpt-4o-mini"],
    ["concrete inventory id", "meta-llama/llama-3.3-70b-instruct", "chat", undefined, "meta-llama/llama-3.3-70b-instruct"],
    ["unique bare name, upper case", "GPT-4.1-MINI", "chat", undefined, "openai/gpt-4.1-mini"],
    ["unique bare name of an inventory model", "Llama-3.3-70B-Instruct", "chat", undefined, "meta-llama/llama-3.3-70b-instruct"],
  ])("%s", (_name, requested, endpoint, serviceTier, expected) => {
    const resolution = resolveModel(requested, catalogue(), { endpoint, serviceTier });
    expect(resolution.kind === "alias" ? `tier ${resolution.tier}` : resolution.model.id).toBe(expected);
    expect(resolution.requested).toBe(requested);
  });
});

describe("resolveModel failures", () => {
  it.each<[string, unknown, string]>([
    ["auto:premium", "auto:premium", "model_unknown"],
    ["auto: (empty tier)", "auto:", "model_unknown"],
    ["auto:Quality (case-sensitive tier)", "auto:Quality", "model_unknown"],
    ["unlisted concrete id", "openai/gpt-5-ultra", "model_unknown"],
    ["concrete id in another case", "OpenAI/GPT-4.1", "model_unknown"],
    ["unknown bare name", "gpt-9", "model_unknown"],
    ["ambiguous bare name", "gpt-4o-mini", "model_ambiguous"],
    ["empty string", "", "model_required"],
    ["blank string", "   ", "model_required"],
    ["missing", undefined, "model_required"],
    ["null", null, "model_required"],
    ["number", 42, "model_required"],
    ["array", ["openai/gpt-4.1"], "model_required"],
  ])("%s -> 400 %s", (_name, requested, code) => {
    const error = thrown(() => resolveModel(requested, catalogue(), chat));
    // param: the request field at fault, as OpenAI's errors name it.
    expect({ status: error.status, type: error.type, code: error.code, param: error.param }).toEqual({
      status: 400,
      type: "invalid_request_error",
      code,
      param: "model",
    });
  });

  it("lists every candidate id in the ambiguity message", () => {
    const error = thrown(() => resolveModel("GPT-4o-mini", catalogue(), chat));
    expect(error.message).toBe("GPT-4o-mini names several models: openai/gpt-4o-mini, azure/gpt-4o-mini. Use the full vendor/model id.");
  });

  it("names the unknown tier in the message", () => {
    expect(thrown(() => resolveModel("auto:premium", catalogue(), chat)).message).toContain('"premium"');
  });

  it.each([
    ["an unknown concrete id", `openai/${"m".repeat(1024 * 1024)}`],
    ["an unknown bare name", "m".repeat(1024 * 1024)],
    ["an unknown tier", `auto:${"t".repeat(1024 * 1024)}`],
  ])("quotes at most the start of %s of 1 MiB in the message", (_name, requested) => {
    const { message } = thrown(() => resolveModel(requested, catalogue(), chat));
    expect(message.length).toBeLessThan(400);
    expect(message).toContain("more characters)");
  });

  it("rejects auto on embeddings when the embeddings default is missing from the catalogue", () => {
    const error = thrown(() =>
      resolveModel("auto", catalogue("openai/text-embedding-9"), { endpoint: "embeddings", serviceTier: undefined }),
    );
    expect({ status: error.status, code: error.code }).toEqual({ status: 400, code: "no_eligible_model" });
  });
});
