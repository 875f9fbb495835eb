// The attempt plan and its hold: every target that may be tried, in order,
// and one hold covering the priciest of them (docs/resilience.md).
import type { Catalogue__Output, Model__Output } from "@gateway/proto";
import { describe, expect, it } from "vitest";
import type { KeyIdentity } from "../../src/auth/key-cache";
import { costNano } from "../../src/billing/pricing";
import { buildSnapshot } from "../../src/catalogue/catalogue-snapshot";
import type { Gateway } from "../../src/gateway";
import { prepareCall, useTarget } from "../../src/proxy/prepare-call";
import { UpstreamProvider } from "../../src/providers/upstream-provider";
import { PathHealth } from "../../src/routing/path-health";
import { catalogueModel } from "../support/catalogue-model";

const price = (input: string, output: string) => ({ inputNanoPerM: input, outputNanoPerM: output, verified: true, source: "test" });

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

function gateway(): Gateway {
  const providers = new Map(
    ["openai", "openrouter"].map((name) => [
      name,
      new UpstreamProvider(
        { name, baseUrl: `http://${name}.invalid/v1`, protocol: "openai-compatible", extraFields: [] },
        undefined as never,
      ),
    ]),
  );
  return {
    catalogue: { current: buildSnapshot(catalogue) },
    providers,
    health: new PathHealth({ errorHalfLifeMs: 30_000, failureThreshold: 5, cooldownMs: 30_000 }),
    config: {
      credentials: new Map([
        ["OPENAI_API_KEY", "sk-openai"],
        ["OPENROUTER_API_KEY", "sk-or"],
      ]),
      upstream: { maxAttempts: 4 },
    },
  } as unknown as Gateway;
}

const identity: KeyIdentity = { projectId: "p", keyId: "k" } as KeyIdentity;
const prepare = (body: Record<string, unknown>) =>
  prepareCall(gateway(), "req-1", identity, { messages: [{ role: "user", content: "hello" }], ...body }, "chat");
const plan = (call: ReturnType<typeof prepare>) => call.targets.map((target) => `${target.model.id} via ${target.path.provider}`);

describe("prepareCall: the attempt plan", () => {
  it("lists each candidate's paths in order, then the next candidate", () => {
    const call = prepare({ model: "auto" });
    expect(plan(call)).toEqual(["openai/cheap via openai", "openai/cheap via openrouter", "acme/pricey via openrouter"]);
    expect(call.target).toBe(call.targets[0]);
    expect(call.targets.map((target) => target.context.apiKey)).toEqual(["sk-openai", "sk-or", "sk-or"]);
    expect(JSON.parse(call.targets[1]!.upstream.body).model).toBe("openai/cheap");
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
    expect(pricey!.holdNano).toBeGreaterThan(cheap!.holdNano);
    expect(call.holdNano).toBe(pricey!.holdNano);
    expect(call.minHoldNano).toBe(cheap!.holdNano);
    expect(cheap!.holdNano).toBe(costNano(cheap!.path.price, { inputTokens: cheap!.inputUpperTokens, outputTokens: 100 }));
  });

  it("leaves out of the hold a target beyond the attempt limit (it can only be reached past skipped ones, and is skipped itself if uncovered)", () => {
    const limited = gateway();
    (limited.config.upstream as { maxAttempts: number }).maxAttempts = 2;
    const call = prepareCall(
      limited,
      "req-1",
      identity,
      { model: "auto", max_tokens: 100, messages: [{ role: "user", content: "hello" }] },
      "chat",
    );
    expect(call.targets).toHaveLength(3);
    expect(call.holdNano).toBe(call.targets[1]!.holdNano);
  });

  it("with a single target and the caller's max tokens, the full hold is required (minimum 0)", () => {
    const call = prepare({ model: "acme/pricey", max_tokens: 100 });
    expect(call.minHoldNano).toBe(0n);
  });

  it("accepts the first target's smallest capped answer when the caller set no max tokens", () => {
    const call = prepare({ model: "auto" });
    expect(call.minHoldNano).toBe(call.targets[0]!.minHoldNano);
    expect(call.minHoldNano).toBeGreaterThan(0n);
  });
});

describe("useTarget: what the hold allows", () => {
  it("skips a target the hold cannot cover when the caller fixed max tokens", () => {
    const call = prepare({ model: "auto", max_tokens: 100 });
    // The OpenRouter body names the model longer ("openai/cheap"), so its bound is a few bytes higher.
    call.reservedNano = call.targets[1]!.holdNano;
    expect(useTarget(call, call.targets[0]!)).toBe(true);
    expect(useTarget(call, call.targets[1]!)).toBe(true);
    expect(call.trace.path).toBe("openrouter");
    expect(useTarget(call, call.targets[2]!)).toBe(false);
  });

  it("caps the answer of a target the hold covers only in part, and says so in the trace", () => {
    const call = prepare({ model: "auto" });
    const pricey = call.targets[2]!;
    call.reservedNano = pricey.minHoldNano * 4n;
    expect(useTarget(call, pricey)).toBe(true);
    const capped = JSON.parse(pricey.upstream.body).max_tokens as number;
    expect(capped).toBeGreaterThanOrEqual(16);
    expect(call.trace).toMatchObject({ resolved: "acme/pricey", path: "openrouter", max_tokens_capped: capped });
    expect(costNano(pricey.path.price, { inputTokens: pricey.inputUpperTokens + 32, outputTokens: capped })).toBeLessThanOrEqual(
      call.reservedNano,
    );
    // Moving on to a target the hold covers in full clears the cap from the trace.
    call.reservedNano = call.holdNano;
    expect(useTarget(call, call.targets[0]!)).toBe(true);
    expect(call.trace.max_tokens_capped).toBeUndefined();
  });
});
