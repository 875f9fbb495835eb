// The call plan and its hold: every target that may be tried, in order, and
// one hold covering the priciest of them; what the hold allows of each target
// when it is chosen (docs/resilience.md).
import type { Catalogue__Output, GatewayError, Model__Output } from "@gateway/proto";
import { describe, expect, it, vi } from "vitest";
import type { KeyIdentity } from "../../src/auth/key-cache";
import { cappedBound, worstCaseNano } from "../../src/billing/worst-case";
import { buildSnapshot } from "../../src/catalogue/catalogue-snapshot";
import { openAiChat } from "../../src/dialects/openai/openai-chat-dialect";
import { openAiResponses } from "../../src/dialects/openai-responses/openai-responses-dialect";
import { type PlanContext, planCall } from "../../src/engine/call-plan";
import { invalidRequest } from "../../src/errors";
import { chooseCall, traceChoice } from "../../src/engine/choose-target";
import { UpstreamProvider } from "../../src/providers/upstream-provider";
import { PathHealth } from "../../src/routing/path-health";
import { UpstreamHttp } from "../../src/upstream/upstream-http";
import { catalogueModel, protoPrice } from "../support/catalogue-model";
import { thrown } from "../support/thrown";
import { keyPools } from "../support/key-pools";

const price = (input: string, output: string) => protoPrice(input, output);

const model = (id: string, paths: Model__Output["paths"]) => catalogueModel(id, paths);

const catalogue: Catalogue__Output = {
  revision: "r",
  models: [
    model("openai/cheap", [
      { provider: "openai", upstreamModel: "cheap", credentialsRef: "OPENAI_API_KEY", price: price("100000000", "400000000") },
      {
        provider: "openrouter",
        upstreamModel: "openai/cheap",
        credentialsRef: "OPENROUTER_API_KEY",
        price: price("100000000", "400000000"),
      },
    ]),
    model("acme/pricey", [
      {
        provider: "openrouter",
        upstreamModel: "acme/pricey",
        credentialsRef: "OPENROUTER_API_KEY",
        price: price("3000000000", "15000000000"),
      },
    ]),
  ],
  defaults: { embeddings: "" },
};

const http = new UpstreamHttp({
  connectTimeoutMs: 1_000,
  headersTimeoutMs: 1_000,
  streamIdleTimeoutMs: 1_000,
  maxConnections: 0,
});

/** @param responsesApi the providers that serve the Responses API themselves. */
function planContext(maxAttempts = 4, responsesApi: string[] = []): PlanContext {
  const providers = new Map(
    ["openai", "openrouter"].map((name) => [
      name,
      new UpstreamProvider(
        {
          name,
          baseUrl: `http://${name}.invalid/v1`,
          protocol: "openai-compatible",
          extraFields: [],
          responsesApi: responsesApi.includes(name),
        },
        http,
      ),
    ]),
  );
  return {
    providers,
    health: new PathHealth({ errorHalfLifeMs: 30_000, failureThreshold: 5, cooldownMs: 30_000 }),
    credentials: keyPools({ OPENAI_API_KEY: "sk-openai", OPENROUTER_API_KEY: "sk-or" }),
    maxAttempts,
  };
}

const identity: KeyIdentity = {
  projectId: "p",
  keyId: "k",
  rpmLimit: null,
  key: { rpmLimit: null, moneyLimits: false, expiresAtMs: 0, limitsKeyId: "k" },
};
const planFor = (body: Record<string, unknown>, maxAttempts = 4) =>
  planCall(
    planContext(maxAttempts),
    buildSnapshot(catalogue),
    "req-1",
    identity,
    openAiChat,
    openAiChat.parse({ messages: [{ role: "user", content: "hello" }], ...body }),
  );
const prepare = (body: Record<string, unknown>) => planFor(body);
const plan = (call: ReturnType<typeof prepare>) => call.targets.map((target) => `${target.model.id} via ${target.path.provider}`);

describe("planCall: a path whose key is not set", () => {
  it("is never a target, and the trace says it was skipped, without naming the operator's variable", () => {
    const context = { ...planContext(4), credentials: keyPools({ OPENROUTER_API_KEY: "sk-or" }) };
    const call = planCall(
      context,
      buildSnapshot(catalogue),
      "req-1",
      identity,
      openAiChat,
      openAiChat.parse({ model: "openai/cheap", messages: [{ role: "user", content: "hello" }] }),
    );
    expect(plan(call)).toEqual(["openai/cheap via openrouter"]);
    expect(call.trace.attempts).toEqual([{ model: "openai/cheap", path: "openai", outcome: "skipped: access path not configured", ms: 0 }]);
  });
});

describe("planCall: a request only a native upstream can serve", () => {
  // The Responses dialect marks nothing native-only any more (the Anthropic one does): the mark is set here by hand.
  const NATIVE_ONLY = invalidRequest("unsupported_input", "This request needs an upstream that speaks it natively.");
  const responses = (body: Record<string, unknown>, nativeOnly?: GatewayError) =>
    planCall(planContext(4, ["openai"]), buildSnapshot(catalogue), "req-1", identity, openAiResponses, {
      ...openAiResponses.parse(body),
      ...(nativeOnly ? { nativeOnly } : {}),
    });

  it("keeps only the paths that speak the client's dialect, passing the body through", () => {
    const call = responses({ model: "auto", input: "hi", truncation: "auto" }, NATIVE_ONLY);
    expect(plan(call)).toEqual(["openai/cheap via openai"]);
    expect(call.targets[0]!.sized.upstream.path).toBe("/responses");
    expect(JSON.parse(call.targets[0]!.sized.upstream.body).truncation).toBe("auto");
  });

  it("refuses with the request's own 400 when no routed path speaks it", () => {
    const error = thrown(() => responses({ model: "acme/pricey", input: "hi" }, NATIVE_ONLY));
    expect(error).toBe(NATIVE_ONLY);
  });

  it("keeps every path, native or translated, for a request any can serve", () => {
    const call = responses({ model: "auto", input: "hi" });
    expect(plan(call)).toEqual(["openai/cheap via openai", "openai/cheap via openrouter", "acme/pricey via openrouter"]);
    expect(call.targets.map((target) => target.sized.upstream.path)).toEqual(["/responses", "/chat/completions", "/chat/completions"]);
  });
});

describe("planCall: the attempt plan", () => {
  it("lists each candidate's paths in order, then the next candidate", () => {
    const call = prepare({ model: "auto" });
    expect(plan(call)).toEqual(["openai/cheap via openai", "openai/cheap via openrouter", "acme/pricey via openrouter"]);
    expect(call.trace).toMatchObject({ resolved: "openai/cheap", path: "openai" });
    expect(call.targets.map((target) => target.context.apiKey)).toEqual(["sk-openai", "sk-or", "sk-or"]);
    expect(JSON.parse(call.targets[1]!.sized.upstream.body).model).toBe("openai/cheap");
  });

  it("keeps one model's paths with route pinned, and for a concrete model", () => {
    expect(plan(prepare({ model: "auto", service: { route: "pinned" } }))).toEqual([
      "openai/cheap via openai",
      "openai/cheap via openrouter",
    ]);
    expect(plan(prepare({ model: "acme/pricey" }))).toEqual(["acme/pricey via openrouter"]);
  });

  it("asks for a hold covering the priciest target, and accepts one covering the first", () => {
    const call = prepare({ model: "auto", max_tokens: 100 });
    const [cheap, , pricey] = call.targets;
    expect(pricey!.sized.holdNano).toBeGreaterThan(cheap!.sized.holdNano);
    expect(call.holdNano).toBe(pricey!.sized.holdNano);
    expect(call.minHoldNano).toBe(cheap!.sized.holdNano);
    expect(cheap!.sized.holdNano).toBe(worstCaseNano(cheap!.path.price, cheap!.sized.bound));
    expect(cheap!.sized.bound).toMatchObject({ outputLimitTokens: 100, outputBeyondLimitTokens: 0 });
  });

  it("leaves out of the hold a target beyond the attempt limit (it can only be reached past skipped ones, and is skipped itself if uncovered)", () => {
    const call = planFor({ model: "auto", max_tokens: 100 }, 2);
    expect(call.targets).toHaveLength(3);
    expect(call.holdNano).toBe(call.targets[1]!.sized.holdNano);
  });

  it("with a single target and the caller's max tokens, the full hold is required (minimum 0)", () => {
    const call = prepare({ model: "acme/pricey", max_tokens: 100 });
    expect(call.minHoldNano).toBe(0n);
  });

  it("accepts the first target's smallest capped answer when the caller set no max tokens", () => {
    const call = prepare({ model: "auto" });
    expect(call.minHoldNano).toBe(call.targets[0]!.sized.minHoldNano);
    expect(call.minHoldNano).toBeGreaterThan(0n);
  });
});

describe("chooseCall: what the hold allows", () => {
  it("skips a target the hold cannot cover when the caller fixed max tokens", () => {
    const call = prepare({ model: "auto", max_tokens: 100 });
    // The OpenRouter body names the model longer ("openai/cheap"), so its bound is a few bytes higher.
    const reserved = call.targets[1]!.sized.holdNano;
    expect(chooseCall(call.targets[0]!, reserved)).toBeDefined();
    const second = chooseCall(call.targets[1]!, reserved);
    expect(second).toBeDefined();
    traceChoice(call.trace, call.targets[1]!, second);
    expect(call.trace.path).toBe("openrouter");
    expect(chooseCall(call.targets[2]!, reserved)).toBeUndefined();
  });

  it("caps the answer of a target the hold covers only in part, and says so in the trace", () => {
    const call = prepare({ model: "auto" });
    const pricey = call.targets[2]!;
    const reserved = pricey.sized.minHoldNano * 4n;
    const chosen = chooseCall(pricey, reserved);
    expect(chosen).toBeDefined();
    traceChoice(call.trace, pricey, chosen);
    const capped = JSON.parse(chosen!.upstream.body).max_tokens as number;
    expect(capped).toBeGreaterThanOrEqual(16);
    expect(chosen!.cappedTo).toBe(capped);
    expect(call.trace).toMatchObject({ resolved: "acme/pricey", path: "openrouter", max_tokens_capped: capped });
    expect(worstCaseNano(pricey.path.price, cappedBound(pricey.sized.bound, capped))).toBeLessThanOrEqual(reserved);
    expect(worstCaseNano(pricey.path.price, cappedBound(pricey.sized.bound, capped + 1))).toBeGreaterThan(reserved);
    // Moving on to a target the hold covers in full clears the cap from the trace.
    const covered = chooseCall(call.targets[0]!, call.holdNano);
    expect(covered).toBeDefined();
    traceChoice(call.trace, call.targets[0]!, covered);
    expect(call.trace.max_tokens_capped).toBeUndefined();
  });

  it("builds a target beyond the attempt limit only when it is chosen", () => {
    const context = planContext(1);
    const openrouter = vi.spyOn(context.providers.get("openrouter")!.adapterFor("any"), "request");
    const request = openAiChat.parse({ model: "auto", max_tokens: 100, messages: [{ role: "user", content: "hello" }] });
    const call = planCall(context, buildSnapshot(catalogue), "req-1", identity, openAiChat, request);
    expect(openrouter).not.toHaveBeenCalled();
    const late = call.targets[2]!;
    const chosen = chooseCall(late, late.sized.holdNano);
    expect(openrouter).toHaveBeenCalledTimes(1);
    expect(JSON.parse(chosen!.upstream.body).model).toBe("acme/pricey");
  });
});
