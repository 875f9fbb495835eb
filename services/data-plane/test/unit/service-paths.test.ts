// `service.paths` (docs/routing.md): only the access paths it names, in its order, for `auto`, route
// lists and concrete models alike; and the cloud paths (bedrock, vertex, azure), which name no
// credentials variable, routed when their provider is configured on the data plane and skipped when not.
import type { Model__Output } from "@gateway/proto";
import { describe, expect, it } from "vitest";
import { buildSnapshot } from "../../src/catalogue/catalogue-snapshot";
import { anthropicMessages } from "../../src/dialects/anthropic-messages/anthropic-messages-dialect";
import { openAiChat } from "../../src/dialects/openai/openai-chat-dialect";
import { openAiResponses } from "../../src/dialects/openai-responses/openai-responses-dialect";
import { PathHealth } from "../../src/routing/path-health";
import { type RoutingContext, routeRequest, unsetCredentials } from "../../src/routing/route-request";
import { reasonHeader } from "../../src/routing/route-trace";
import { parseServiceBlock } from "../../src/routing/service-block";
import { catalogueModel, protoPrice } from "../support/catalogue-model";
import { thrown } from "../support/thrown";

const CIRCUIT = { errorHalfLifeMs: 30_000, failureThreshold: 5, cooldownMs: 30_000 };

/** A path; `credentialsRef` "" is a cloud path's: no variable of the data plane, the cloud's own credential chain. */
const path = (provider: string, upstreamModel: string, input: string, output: string, credentialsRef = "") => ({
  provider,
  upstreamModel,
  credentialsRef,
  price: protoPrice(input, output),
});

function catalogue() {
  const models: Model__Output[] = [
    catalogueModel("anthropic/claude-x", [
      path("anthropic", "claude-x-20250101", "3000000000", "15000000000", "ANTHROPIC_API_KEY"),
      path("bedrock", "us.anthropic.claude-x-20250101-v1:0", "3300000000", "16500000000"),
      path("vertex", "claude-x@20250101", "3000000000", "15000000000"),
      path("openrouter", "anthropic/claude-x", "3000000000", "15000000000", "OPENROUTER_API_KEY"),
    ]),
    catalogueModel("openai/gpt-y", [
      path("openai", "gpt-y", "400000000", "1600000000", "OPENAI_API_KEY"),
      path("azure", "gpt-y", "400000000", "1600000000"),
    ]),
    catalogueModel("google/gemini-z", [
      path("google", "gemini-z", "300000000", "2500000000", "GOOGLE_API_KEY"),
      path("vertex", "gemini-z", "300000000", "2500000000"),
    ]),
    catalogueModel("anthropic/claude-bedrock-only", [path("bedrock", "us.anthropic.claude-b-v1:0", "1000000000", "5000000000")], {
      tiers: [],
    }),
    catalogueModel("openai/embed", [path("openai", "embed", "20000000", "0", "OPENAI_API_KEY"), path("azure", "embed", "20000000", "0")], {
      tiers: [],
      embeddings: true,
      outputModalities: ["embeddings"],
    }),
  ];
  return buildSnapshot({ revision: "r", models, defaults: { embeddings: "openai/embed" } });
}

const CLOUDS = ["bedrock", "vertex", "azure"];
const VENDORS = ["anthropic", "openai", "google", "openrouter"];
const KEYS = ["ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GOOGLE_API_KEY", "OPENROUTER_API_KEY"];

function context(providers = [...VENDORS, ...CLOUDS], health = new PathHealth(CIRCUIT)): RoutingContext {
  return {
    providers: new Map(providers.map((name) => [name, { adapterFor: () => ({ supports: () => true }) }])),
    health,
    credentials: new Map(KEYS.map((key) => [key, "k"])),
  };
}

const messages = [{ role: "user", content: "hi" }];
const route = (model: string, service?: Record<string, unknown>, routing = context(), endpoint: "chat" | "embeddings" = "chat") =>
  routeRequest(routing, catalogue(), { model, messages }, parseServiceBlock(service), endpoint);
const providers = (chosen: ReturnType<typeof route>, index = 0) => chosen.candidates[index]!.paths.map((p) => p.provider);

describe("cloud paths without credentials", () => {
  it("are routed when their provider is configured on the data plane, in the catalogue's order", () => {
    expect(providers(route("anthropic/claude-x"))).toEqual(["anthropic", "bedrock", "vertex", "openrouter"]);
    expect(providers(route("openai/gpt-y"))).toEqual(["openai", "azure"]);
  });

  it("are skipped where their provider is not configured, never counted as a missing key", () => {
    const vendorsOnly = context(VENDORS);
    expect(providers(route("anthropic/claude-x", undefined, vendorsOnly))).toEqual(["anthropic", "openrouter"]);
    expect(thrown(() => route("anthropic/claude-bedrock-only", undefined, vendorsOnly))).toMatchObject({
      status: 400,
      code: "model_unknown",
      message: "Model anthropic/claude-bedrock-only has no access path this gateway can reach and price.",
    });
    expect(unsetCredentials(vendorsOnly, catalogue())).toEqual([]);
    expect(unsetCredentials(context(), catalogue())).toEqual([]);
  });

  it("serve a model only a cloud has on a data plane configured for that cloud", () => {
    const chosen = route("anthropic/claude-bedrock-only", undefined, context(["bedrock"]));
    expect([chosen.path.provider, chosen.path.upstreamModel, chosen.path.credentialsRef]).toEqual([
      "bedrock",
      "us.anthropic.claude-b-v1:0",
      "",
    ]);
  });
});

describe("service.paths on a concrete model", () => {
  it("uses only the paths it names, in its order, whatever the catalogue's order", () => {
    const chosen = route("anthropic/claude-x", { paths: ["vertex", "bedrock"] });
    expect(providers(chosen)).toEqual(["vertex", "bedrock"]);
    expect(chosen.path.provider).toBe("vertex");
  });

  it("matches names case-insensitively and leaves unknown names unmatched", () => {
    expect(providers(route("anthropic/claude-x", { paths: ["nowhere", "Bedrock", "anthropic"] }))).toEqual(["bedrock", "anthropic"]);
  });

  it("keeps its order even when a named path is failing (the caller chose it, as a route list's models)", () => {
    const health = new PathHealth(CIRCUIT);
    for (let index = 0; index < 10; index++) health.record(PathHealth.key("vertex", "claude-x@20250101"), { ok: false, latencyMs: 50 });
    const routing = context(undefined, health);
    expect(providers(route("anthropic/claude-x", undefined, routing))).toEqual(["anthropic", "bedrock", "openrouter", "vertex"]);
    expect(providers(route("anthropic/claude-x", { paths: ["vertex", "bedrock"] }, routing))).toEqual(["vertex", "bedrock"]);
  });

  it("answers 400 no_eligible_model when none of the model's paths is named, listing the ones it has here", () => {
    expect(thrown(() => route("anthropic/claude-x", { paths: ["azure", "nowhere"] }))).toMatchObject({
      status: 400,
      code: "no_eligible_model",
      message:
        "Model anthropic/claude-x has no access path named in service.paths (its paths here: anthropic, bedrock, vertex, openrouter).",
    });
    // A named path on a provider this data plane lacks is not one it has.
    expect(thrown(() => route("anthropic/claude-x", { paths: ["bedrock"] }, context(VENDORS))).message).toBe(
      "Model anthropic/claude-x has no access path named in service.paths (its paths here: anthropic, openrouter).",
    );
  });

  it("applies to embeddings too", () => {
    const chosen = route("openai/embed", { paths: ["azure"] }, context(), "embeddings");
    expect([chosen.path.provider, providers(chosen)]).toEqual(["azure", ["azure"]]);
  });
});

describe("service.paths with auto and route lists", () => {
  it("keeps the models with a named path, each through its named paths only, cheapest first by the named path's price", () => {
    const chosen = route("auto:balanced", { paths: ["vertex"] });
    expect(chosen.candidates.map((candidate) => [candidate.model.id, candidate.paths.map((p) => p.provider)])).toEqual([
      ["google/gemini-z", ["vertex"]],
      ["anthropic/claude-x", ["vertex"]],
    ]);
    expect(chosen.excluded).toContainEqual({
      model: "openai/gpt-y",
      why: "no access path named in service.paths (its paths here: openai, azure)",
    });
  });

  it("orders each model's paths as it lists them", () => {
    const chosen = route("auto:balanced", { paths: ["azure", "openai", "bedrock", "anthropic"] });
    expect(chosen.candidates.map((candidate) => [candidate.model.id, candidate.paths.map((p) => p.provider)])).toEqual([
      ["openai/gpt-y", ["azure", "openai"]],
      ["anthropic/claude-x", ["bedrock", "anthropic"]],
    ]);
  });

  it("restricts a pinned route list's one candidate too", () => {
    const chosen = route("auto", { route: ["anthropic/claude-x", "openai/gpt-y"], paths: ["openrouter", "bedrock"] });
    expect(providers(chosen)).toEqual(["openrouter", "bedrock"]);
    const pinned = route("auto", { route: "pinned", paths: ["azure"] });
    expect(pinned.candidates.map((candidate) => [candidate.model.id, candidate.paths.map((p) => p.provider)])).toEqual([
      ["openai/gpt-y", ["azure"]],
    ]);
  });

  it("answers 400 no_eligible_model naming why when no model has a named path", () => {
    const error = thrown(() => route("auto:balanced", { paths: ["nowhere"] }));
    expect([error.status, error.code]).toEqual([400, "no_eligible_model"]);
    expect(error.message).toContain(
      "anthropic/claude-x: no access path named in service.paths (its paths here: anthropic, bedrock, vertex, openrouter)",
    );
    expect(error.message).toContain("openai/gpt-y: no access path named in service.paths (its paths here: openai, azure)");
  });
});

describe("service.paths through each client dialect", () => {
  const parsers: [string, (service: unknown) => { service: unknown }][] = [
    ["chat completions", (service) => openAiChat.parse({ model: "auto", messages, service })],
    ["Responses", (service) => openAiResponses.parse({ model: "auto", input: "hi", service })],
    ["Messages", (service) => anthropicMessages.parse({ model: "auto", max_tokens: 16, messages, service })],
  ];

  it.each(parsers)("%s carries it to routing", (_dialect, parse) => {
    expect(parse({ paths: ["bedrock", "vertex"] }).service).toMatchObject({ paths: ["bedrock", "vertex"] });
  });

  it.each(parsers)("%s refuses a bad one with 400 invalid_service", (_dialect, parse) => {
    expect(thrown(() => parse({ paths: [] }))).toMatchObject({ status: 400, code: "invalid_service" });
    const many = Array.from({ length: 100 }, (_, index) => `p${index}`);
    expect(thrown(() => parse({ paths: many }))).toMatchObject({
      code: "invalid_service",
      message: "service.paths may hold at most 32 distinct entries.",
    });
  });
});

describe("the trace names the path that served", () => {
  it("in X-Service-Reason: the provider name of the path, a cloud's too", () => {
    const chosen = route("anthropic/claude-x", { paths: ["bedrock"] });
    const trace = {
      requested: chosen.requested,
      resolved: chosen.model.id,
      tier: null,
      purpose: null,
      candidates: [chosen.model.id],
      excluded: [],
      attempts: [{ model: chosen.model.id, path: chosen.path.provider, outcome: "ok", ms: 5 }],
      path: chosen.path.provider,
    };
    expect(reasonHeader(trace)).toBe("anthropic/claude-x via bedrock, 1 attempt");
  });
});
