import type { Catalogue__Output, Model__Output } from "@gateway/proto";
import { describe, expect, it } from "vitest";
import { buildSnapshot, type AccessPath, type CatalogueSnapshot } from "../../src/catalogue/catalogue-snapshot";
import { PathHealth } from "../../src/routing/path-health";
import { requestNeeds, type RequestNeeds } from "../../src/routing/request-needs";
import { type RoutingContext, routeRequest, unsetCredentials } from "../../src/routing/route-request";
import { allowedBy, selectCandidates, tierPool } from "../../src/routing/select-candidates";
import { parseServiceBlock } from "../../src/routing/service-block";
import { thrown } from "../support/thrown";
import { catalogueModel, protoPrice } from "../support/catalogue-model";

/** Circuit settings that never open within these tests unless they fail a path five times in a row. */
const CIRCUIT = { errorHalfLifeMs: 30_000, failureThreshold: 5, cooldownMs: 30_000 };

const price = (input: string, output: string) => protoPrice(input, output);

function model(id: string, overrides: Partial<Model__Output> = {}): Model__Output {
  const [vendor, upstream] = [id.split("/")[0]!, id.slice(id.indexOf("/") + 1)];
  return {
    id,
    curated: true,
    tiers: [],
    purposes: [],
    ownedBy: vendor,
    created: "0",
    contextLength: 128_000,
    maxOutputTokens: 16_384,
    inputModalities: ["text", "image"],
    outputModalities: ["text"],
    tools: true,
    jsonSchema: true,
    embeddings: false,
    paths: [{ provider: vendor, upstreamModel: upstream, credentialsRef: "", price: price("400000000", "1600000000") }],
    ...overrides,
  };
}

function catalogue(): CatalogueSnapshot {
  const input: Catalogue__Output = {
    revision: "r",
    models: [
      model("openai/gpt-4o-mini", {
        tiers: ["economy"],
        purposes: ["vision"],
        paths: [{ provider: "openai", upstreamModel: "gpt-4o-mini", credentialsRef: "", price: price("150000000", "600000000") }],
      }),
      model("openai/gpt-4.1-nano", {
        tiers: ["economy"],
        purposes: ["extraction"],
        paths: [{ provider: "openai", upstreamModel: "gpt-4.1-nano", credentialsRef: "", price: price("100000000", "400000000") }],
      }),
      model("acme/tiny", {
        tiers: ["economy"],
        tools: false,
        jsonSchema: false,
        inputModalities: ["text"],
        contextLength: 8_000,
        paths: [{ provider: "acme", upstreamModel: "tiny", credentialsRef: "", price: price("10000000", "10000000") }],
      }),
      model("google/image-maker", {
        tiers: ["economy"],
        outputModalities: ["text", "image"],
        paths: [{ provider: "google", upstreamModel: "img", credentialsRef: "", price: price("300000000", "2500000000") }],
      }),
      model("openai/gpt-4.1-mini", { tiers: ["balanced"] }),
      model("anthropic/claude-x", {
        tiers: ["balanced"],
        purposes: ["agent"],
        paths: [
          { provider: "anthropic", upstreamModel: "claude-x", credentialsRef: "", price: price("3000000000", "15000000000") },
          { provider: "openrouter", upstreamModel: "anthropic/claude-x", credentialsRef: "", price: price("3000000000", "15000000000") },
        ],
      }),
      model("offline/unreachable", {
        tiers: ["balanced"],
        paths: [{ provider: "offline", upstreamModel: "u", credentialsRef: "", price: price("1", "1") }],
      }),
      model("openai/unpriced", {
        tiers: ["balanced"],
        paths: [{ provider: "openai", upstreamModel: "u", credentialsRef: "", price: null }],
      }),
      model("openai/embed", { embeddings: true, tiers: ["economy"], outputModalities: ["embeddings"] }),
      model("inventory/only", { curated: false, tiers: [] }),
    ],
    defaults: { embeddings: "openai/embed" },
  };
  return buildSnapshot(input);
}

const REACHABLE = new Set(["openai", "acme", "google", "anthropic", "openrouter"]);
const plain: RequestNeeds = {
  tools: false,
  jsonSchema: false,
  imageInput: false,
  imageOutput: false,
  contextTokens: 100,
  serviceTier: undefined,
};

function select(
  tier: string,
  needs: Partial<RequestNeeds> = {},
  options: { purpose?: string; allow?: string[]; health?: PathHealth } = {},
) {
  const health = options.health ?? new PathHealth(CIRCUIT);
  return selectCandidates({
    pool: tierPool(catalogue(), tier),
    keepOrder: false,
    needs: { ...plain, ...needs },
    purpose: options.purpose,
    allow: options.allow,
    reachable: (path) => REACHABLE.has(path.provider),
    health: (path: AccessPath) => health.view(PathHealth.key(path.provider, path.upstreamModel)),
  });
}

const ids = (selection: ReturnType<typeof select>) => selection.candidates.map((candidate) => candidate.model.id);

describe("selectCandidates: service tiers", () => {
  it("keeps every model for the standard tiers (auto, default) and for no tier", () => {
    for (const serviceTier of [undefined, "auto", "default"])
      expect(ids(select("economy", { serviceTier }))).toEqual(ids(select("economy")));
  });
});

describe("selectCandidates: filters", () => {
  it.each<[string, Partial<RequestNeeds>, string, string]>([
    ["tools", { tools: true }, "acme/tiny", "does not support tools"],
    ["json_schema", { jsonSchema: true }, "acme/tiny", "does not support json_schema output"],
    ["image input", { imageInput: true }, "acme/tiny", "does not accept image input"],
    ["image output", { imageOutput: true }, "openai/gpt-4o-mini", "does not produce images"],
    ["context length", { contextTokens: 9_000 }, "acme/tiny", "context 8000 tokens < 9000 needed"],
    // No path of the test catalogue prices a service tier: an answer at it would be billed at the wrong rates.
    ["a service tier no path prices", { serviceTier: "priority" }, "acme/tiny", "no reachable access path pricing service_tier priority"],
  ])("excludes by %s, saying why", (_need, needs, excludedModel, why) => {
    const selection = select("economy", needs);
    expect(selection.excluded).toContainEqual({ model: excludedModel, why });
    expect(ids(selection)).not.toContain(excludedModel);
  });

  it("keeps only image-producing models when images are asked for", () => {
    expect(ids(select("economy", { imageOutput: true }))).toEqual(["google/image-maker"]);
  });

  it("never picks an embeddings model for chat", () => {
    expect(select("economy").excluded).toContainEqual({ model: "openai/embed", why: "an embeddings model" });
  });

  it("excludes models without a reachable, priced access path", () => {
    const selection = select("balanced");
    expect(selection.excluded).toContainEqual({ model: "offline/unreachable", why: "no reachable access path with a price" });
    expect(selection.excluded).toContainEqual({ model: "openai/unpriced", why: "no reachable access path with a price" });
  });

  it.each<[string[], string[]]>([
    [["openai"], ["openai/gpt-4.1-nano", "openai/gpt-4o-mini"]],
    [["openai/*"], ["openai/gpt-4.1-nano", "openai/gpt-4o-mini"]],
    [["openai/gpt-4o-mini"], ["openai/gpt-4o-mini"]],
    // The image generator is allowed, but a text request does not go to one (next describe).
    [["acme", "google/image-maker"], ["acme/tiny"]],
    [["nobody"], []],
  ])("keeps only what service.allow %j allows", (allow, expected) => {
    const selection = select("economy", {}, { allow });
    expect(ids(selection)).toEqual(expected);
    for (const entry of selection.excluded.filter((excluded) => excluded.why === "not in service.allow"))
      expect(expected).not.toContain(entry.model);
  });
});

describe("selectCandidates: order", () => {
  it("puts the cheapest first (input + output price per million)", () => {
    expect(ids(select("economy"))).toEqual(["acme/tiny", "openai/gpt-4.1-nano", "openai/gpt-4o-mini"]);
  });

  it("leaves a tier's image generators out of a text request: neither a candidate nor an exclusion", () => {
    const selection = select("economy");
    expect(ids(selection)).not.toContain("google/image-maker");
    expect(selection.excluded.map((entry) => entry.model)).not.toContain("google/image-maker");
    expect(ids(select("economy", { imageOutput: true }))).toEqual(["google/image-maker"]);
  });

  it("prefers models listing service.purpose, cheapest first among them", () => {
    expect(ids(select("economy", {}, { purpose: "vision" }))[0]).toBe("openai/gpt-4o-mini");
    expect(ids(select("balanced", {}, { purpose: "agent" }))).toEqual(["anthropic/claude-x", "openai/gpt-4.1-mini"]);
  });

  it("demotes a model whose path is failing, after enough observations", () => {
    const health = new PathHealth(CIRCUIT);
    for (let index = 0; index < 4; index++) health.record("acme/tiny", { ok: false, latencyMs: 100 });
    expect(ids(select("economy", {}, { health }))[0]).toBe("acme/tiny"); // too few observations to judge
    health.record("acme/tiny", { ok: false, latencyMs: 100 });
    expect(ids(select("economy", {}, { health })).at(-1)).toBe("acme/tiny");
  });

  it("switches a model to its next access path when the first is failing", () => {
    const health = new PathHealth(CIRCUIT);
    for (let index = 0; index < 10; index++) health.record("anthropic/claude-x", { ok: false, latencyMs: 50 });
    const claude = select("balanced", {}, { health, purpose: "agent" }).candidates[0]!;
    expect([claude.model.id, claude.path.provider]).toEqual(["anthropic/claude-x", "openrouter"]);
  });

  it("breaks price ties by recent latency", () => {
    const twins = buildSnapshot({
      revision: "r",
      models: [
        model("a/slow", {
          tiers: ["quality"],
          paths: [{ provider: "a", upstreamModel: "slow", credentialsRef: "", price: price("5", "5") }],
        }),
        model("b/fast", {
          tiers: ["quality"],
          paths: [{ provider: "b", upstreamModel: "fast", credentialsRef: "", price: price("5", "5") }],
        }),
      ],
      defaults: null,
    });
    const health = new PathHealth(CIRCUIT);
    health.record("a/slow", { ok: true, latencyMs: 900 });
    health.record("b/fast", { ok: true, latencyMs: 100 });
    const selection = selectCandidates({
      pool: tierPool(twins, "quality"),
      keepOrder: false,
      needs: plain,
      purpose: undefined,
      allow: undefined,
      reachable: () => true,
      health: (path) => health.view(PathHealth.key(path.provider, path.upstreamModel)),
    });
    expect(selection.candidates.map((candidate) => candidate.model.id)).toEqual(["b/fast", "a/slow"]);
  });

  it("keeps a caller's explicit order", () => {
    const pool = [catalogue().byId.get("openai/gpt-4o-mini")!, catalogue().byId.get("acme/tiny")!];
    const selection = selectCandidates({
      pool,
      keepOrder: true,
      needs: plain,
      purpose: undefined,
      allow: undefined,
      reachable: () => true,
      health: () => ({ errorRate: 0, latencyMs: 0, healthy: true, circuit: "closed" }),
    });
    expect(selection.candidates.map((candidate) => candidate.model.id)).toEqual(["openai/gpt-4o-mini", "acme/tiny"]);
  });
});

describe("PathHealth", () => {
  it("judges by the recent error rate: one failure among five calls is healthy, five failures are not", () => {
    const health = new PathHealth(CIRCUIT, () => 0);
    health.record("p", { ok: false, latencyMs: 10 });
    for (let index = 0; index < 4; index++) health.record("p", { ok: true, latencyMs: 10 });
    expect(health.view("p").healthy).toBe(true);
    for (let index = 0; index < 5; index++) health.record("q", { ok: false, latencyMs: 10 });
    expect(health.view("q").healthy).toBe(false);
  });

  it("lets a demoted path recover after a cool-down without calls", () => {
    const clock = { now: 0 };
    const health = new PathHealth(CIRCUIT, () => clock.now);
    for (let index = 0; index < 10; index++) health.record("p", { ok: false, latencyMs: 10 });
    expect(health.view("p").healthy).toBe(false);
    clock.now = 60_000; // two half-lives
    expect(health.view("p").healthy).toBe(true);
  });
});

describe("allowedBy", () => {
  it.each<[string[], string, boolean]>([
    [["openai"], "openai/gpt-4.1", true],
    [["OpenAI"], "openai/gpt-4.1", true],
    [["openai/*"], "openai/gpt-4.1", true],
    [["openai/gpt-4.1"], "openai/gpt-4.1", true],
    [["openai/gpt-4"], "openai/gpt-4.1", false],
    [["open"], "openai/gpt-4.1", false],
    [["anthropic", "google/*"], "openai/gpt-4.1", false],
  ])("%j allows %s: %s", (patterns, id, expected) => {
    expect(allowedBy(patterns, id)).toBe(expected);
  });
});

describe("requestNeeds", () => {
  it.each<[string, Record<string, unknown>, Partial<RequestNeeds>]>([
    ["tools", { tools: [{ type: "function" }] }, { tools: true }],
    ["empty tools", { tools: [] }, { tools: false }],
    ["json_schema", { response_format: { type: "json_schema" } }, { jsonSchema: true }],
    ["json_object is not json_schema", { response_format: { type: "json_object" } }, { jsonSchema: false }],
    ["image input", { messages: [{ role: "user", content: [{ type: "image_url", image_url: { url: "x" } }] }] }, { imageInput: true }],
    ["image output", { modalities: ["image", "text"] }, { imageOutput: true }],
    ["output tokens count toward context", { max_tokens: 500 }, { contextTokens: 525 }],
  ])("%s", (_name, body, expected) => {
    expect(requestNeeds({ messages: [], ...body }, 100)).toMatchObject(expected);
  });

  it("counts an inline image as a fixed number of tokens, not by its bytes", () => {
    const image = `data:image/png;base64,${"A".repeat(4_000_000)}`;
    const body = {
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "what is this?" },
            { type: "image_url", image_url: { url: image } },
          ],
        },
      ],
    };
    const needs = requestNeeds(body, Buffer.byteLength(JSON.stringify(body)));
    expect(needs.imageInput).toBe(true);
    expect(needs.contextTokens).toBeLessThan(2_000); // a 4 MB image would be ~1M tokens by bytes
    expect(ids(select("economy", needs))).toContain("openai/gpt-4o-mini");
  });
});

describe("routeRequest", () => {
  const context: RoutingContext = {
    providers: new Map([...REACHABLE].map((name) => [name, { adapterFor: () => ({ supports: () => true }) }])),
    health: new PathHealth(CIRCUIT),
    credentials: new Map([["OPENROUTER_API_KEY", "k"]]),
  };
  const route = (body: Record<string, unknown>) =>
    routeRequest(context, catalogue(), { messages: [{ role: "user", content: "hi" }], ...body }, parseServiceBlock(body.service), "chat");

  it("never calls a path whose key is not set: the next path serves; with none the tenant is told of no configured access path, not the variable", () => {
    const keyed = (provider: string, upstreamModel: string, credentialsRef: string) => ({
      provider,
      upstreamModel,
      credentialsRef,
      price: protoPrice("100000000", "400000000"),
    });
    const snapshot = buildSnapshot({
      revision: "r",
      models: [
        catalogueModel("google/gemini-x", [
          keyed("google", "gemini-x", "GEMINI_API_KEY"),
          keyed("openrouter", "google/gemini-x", "OPENROUTER_API_KEY"),
        ]),
        catalogueModel("google/gemini-only", [keyed("google", "gemini-only", "GEMINI_API_KEY")]),
      ],
      defaults: { embeddings: "" },
    });
    const body = { messages: [{ role: "user", content: "hi" }] };
    const served = routeRequest(context, snapshot, { ...body, model: "google/gemini-x" }, undefined, "chat");
    expect(served.candidates[0]!.paths.map((path) => path.provider)).toEqual(["openrouter"]);
    expect(thrown(() => routeRequest(context, snapshot, { ...body, model: "google/gemini-only" }, undefined, "chat"))).toMatchObject({
      code: "model_unknown",
      message: "Model google/gemini-only: this model has no configured access path.",
    });
    const auto = thrown(() =>
      routeRequest(context, snapshot, { ...body, model: "auto" }, parseServiceBlock({ route: ["google/gemini-only"] }), "chat"),
    );
    expect(auto).toMatchObject({ code: "no_eligible_model" });
    expect((auto as Error).message).toContain(
      "google/gemini-only: no reachable access path with a price (this model has no configured access path)",
    );
    expect((auto as Error).message).not.toContain("GEMINI_API_KEY");
    // The operator's log names it (data-plane.ts, when the catalogue arrives).
    expect(unsetCredentials(context, snapshot)).toEqual(["GEMINI_API_KEY"]);
  });

  it("chooses within the tier of auto and lists the other candidates", () => {
    const chosen = route({ model: "auto:economy" });
    expect([chosen.model.id, chosen.tier]).toEqual(["acme/tiny", "economy"]);
    expect(chosen.candidates.map((candidate) => candidate.model.id)).toEqual(["acme/tiny", "openai/gpt-4.1-nano", "openai/gpt-4o-mini"]);
  });

  it("keeps only the first candidate with route pinned", () => {
    expect(route({ model: "auto:economy", service: { route: "pinned" } }).candidates).toHaveLength(1);
  });

  it("tries an explicit route list in its order, excluding unknown entries", () => {
    const chosen = route({ model: "auto", service: { route: ["openai/gpt-4o-mini", "nope/nope", "gpt-4.1-nano"] } });
    expect(chosen.candidates.map((candidate) => candidate.model.id)).toEqual(["openai/gpt-4o-mini", "openai/gpt-4.1-nano"]);
    expect(chosen.excluded).toContainEqual({ model: "nope/nope", why: "model_unknown" });
  });

  it("makes one candidate of two route entries naming one model (a bare name and its full id)", () => {
    const chosen = route({ model: "auto", service: { route: ["gpt-4.1-nano", "openai/gpt-4.1-nano", "openai/gpt-4o-mini"] } });
    expect(chosen.candidates.map((candidate) => candidate.model.id)).toEqual(["openai/gpt-4.1-nano", "openai/gpt-4o-mini"]);
  });

  it("names at most 10 exclusions in a no_eligible_model message, each id cut as echo cuts it (issue 33, item 2)", () => {
    const long = `nope/${"x".repeat(5_000)}`;
    const unknown = [long, ...Array.from({ length: 31 }, (_, index) => `nope/model-${index}`)];
    const error = thrown(() => route({ model: "auto", service: { route: unknown } }));
    expect([error.status, error.code]).toEqual([400, "no_eligible_model"]);
    expect(error.message).toContain(`nope/${"x".repeat(195)}... (4805 more characters): model_unknown; nope/model-0: model_unknown`);
    expect(error.message).toContain("nope/model-8: model_unknown; and 22 more).");
    expect(error.message).not.toContain("nope/model-9:");
    expect(error.message.length).toBeLessThan(1_000);
  });

  it("answers 400 no_eligible_model when nothing fits, naming why", () => {
    const error = thrown(() => route({ model: "auto:economy", service: { allow: ["nobody"] } }));
    expect([error.status, error.code]).toEqual([400, "no_eligible_model"]);
    expect(error.message).toContain("acme/tiny: not in service.allow");
  });

  it("honours a concrete model as given, but not against service.allow", () => {
    expect(route({ model: "acme/tiny", tools: [{ type: "function" }] }).model.id).toBe("acme/tiny");
    expect(thrown(() => route({ model: "acme/tiny", service: { allow: ["openai"] } })).code).toBe("no_eligible_model");
  });

  it("refuses image output from a concrete model that cannot make images, and honours one that can", () => {
    const error = thrown(() => route({ model: "acme/tiny", modalities: ["image", "text"] }));
    expect([error.status, error.code]).toEqual([400, "no_eligible_model"]);
    expect(route({ model: "google/image-maker", modalities: ["image", "text"] }).model.id).toBe("google/image-maker");
  });
});
