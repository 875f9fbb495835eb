// Conversation affinity's parts (docs/routing.md, "Affinity"): which conversation a request is a turn
// of, the data plane's own pins, and how a pin orders the targets or gives way, and why.
import type { Catalogue__Output } from "@gateway/proto";
import { Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import type { KeyIdentity } from "../../src/auth/key-cache";
import { buildSnapshot } from "../../src/catalogue/catalogue-snapshot";
import { anthropicMessages } from "../../src/dialects/anthropic-messages/anthropic-messages-dialect";
import { openAiChat } from "../../src/dialects/openai/openai-chat-dialect";
import { openAiEmbeddings } from "../../src/dialects/openai/openai-embeddings-dialect";
import { openAiResponses } from "../../src/dialects/openai-responses/openai-responses-dialect";
import { Call } from "../../src/engine/call";
import { CallAffinity } from "../../src/engine/call-affinity";
import { type PlanContext, planCall } from "../../src/engine/call-plan";
import { CounterFamily } from "../../src/metric-families";
import { openAiCompatibleProviders } from "../support/upstream-providers";
import { LocalPins, type Pin, type PinStore } from "../../src/routing/affinity-pins";
import { conversationOf, PREFIX_BYTES, SESSION_HEADER } from "../../src/routing/conversation-key";
import { PathHealth } from "../../src/routing/path-health";
import { reasonHeader } from "../../src/routing/route-trace";
import { UpstreamHttp } from "../../src/upstream/upstream-http";
import { catalogueModel, protoPrice } from "../support/catalogue-model";
import { keyPools } from "../support/key-pools";

const SYSTEM = { role: "system", content: "You are a careful agent." };
const chatTurn = (...rest: Record<string, unknown>[]) =>
  openAiChat.parse({ model: "auto", messages: [SYSTEM, { role: "user", content: "fix the bug" }, ...rest] });
const keyOf = (request: ReturnType<typeof openAiChat.parse>, project = "p", headers = {}) =>
  conversationOf(project, "openai-chat", request, headers);

describe("conversationOf", () => {
  it("a conversation's later turns have its first turn's key: tools, system and the first message", () => {
    const first = keyOf(chatTurn())!;
    const third = keyOf(chatTurn({ role: "assistant", content: "done" }, { role: "user", content: "now the tests" }))!;
    expect(first).toEqual({ key: expect.stringMatching(/^[\w-]{32}$/), source: "prefix" });
    expect(third.key).toBe(first.key);
    expect(keyOf(chatTurn(), "another project")!.key).not.toBe(first.key);
    const otherStart = openAiChat.parse({ model: "auto", messages: [SYSTEM, { role: "user", content: "write docs" }] });
    expect(keyOf(otherStart)!.key).not.toBe(first.key);
  });

  it("only the first PREFIX_BYTES of the prefix count", () => {
    const long = "x".repeat(PREFIX_BYTES);
    const a = openAiChat.parse({ messages: [{ role: "user", content: `${long}a` }] });
    const b = openAiChat.parse({ messages: [{ role: "user", content: `${long}b` }] });
    expect(keyOf(a)!.key).toBe(keyOf(b)!.key);
  });

  it("the caller's own name wins: prompt_cache_key, then service.session, then the header", () => {
    const named = (extra: Record<string, unknown>, headers = {}) =>
      conversationOf("p", "openai-chat", openAiChat.parse({ messages: [{ role: "user", content: "hi" }], ...extra }), headers)!;
    expect(named({ prompt_cache_key: "c1", service: { session: "s1" } }, { [SESSION_HEADER]: "h1" }).source).toBe("prompt_cache_key");
    expect(named({ service: { session: "s1" } }, { [SESSION_HEADER]: "h1" }).source).toBe("service.session");
    expect(named({}, { [SESSION_HEADER]: "h1" }).source).toBe("header");
    // One name, two different first messages: one conversation.
    const other = conversationOf(
      "p",
      "openai-chat",
      openAiChat.parse({ messages: [{ role: "user", content: "bye" }], prompt_cache_key: "c1" }),
      {},
    );
    expect(other!.key).toBe(named({ prompt_cache_key: "c1" }).key);
  });

  it("Messages: metadata.user_id (Claude Code's session); Responses: prompt_cache_key", () => {
    const messages = anthropicMessages.parse(
      { model: "auto", max_tokens: 10, metadata: { user_id: "user_1_session_abc" }, messages: [{ role: "user", content: "hi" }] },
      {},
    );
    expect(conversationOf("p", "anthropic-messages", messages, {})!.source).toBe("metadata.user_id");
    const responses = openAiResponses.parse({ model: "auto", input: "hi", prompt_cache_key: "conv-7" }, {});
    expect(conversationOf("p", "openai-responses", responses, {})!.source).toBe("prompt_cache_key");
  });

  it("embeddings are no conversation", () => {
    expect(conversationOf("p", "openai-embeddings", openAiEmbeddings.parse({ model: "m", input: "hi" }, {}), {})).toBeUndefined();
  });
});

describe("LocalPins", () => {
  const pin: Pin = { model: "m", provider: "openai", upstreamModel: "u" };

  it("keeps a pin until its expiry, which each put moves on", () => {
    let now = 0;
    const pins = new LocalPins(10, () => now);
    pins.put("c", pin, 1_000);
    now = 900;
    expect(pins.get("c")).toEqual(pin);
    pins.put("c", pin, 1_000);
    now = 1_800;
    expect(pins.get("c")).toEqual(pin);
    now = 1_900;
    expect(pins.get("c")).toBeUndefined();
  });

  it("holds at most its capacity, the least recently used leaving first", () => {
    const pins = new LocalPins(2);
    pins.put("a", pin, 60_000);
    pins.put("b", pin, 60_000);
    pins.get("a");
    pins.put("c", pin, 60_000);
    expect([pins.get("a"), pins.get("b"), pins.get("c")]).toEqual([pin, undefined, pin]);
  });
});

const price = (input: string, output: string) => protoPrice(input, output);
const catalogue: Catalogue__Output = {
  revision: "r",
  models: [
    catalogueModel("openai/fast", [
      { provider: "openai", upstreamModel: "fast", credentialsRef: "OPENAI_API_KEY", price: price("100000000", "400000000") },
      {
        provider: "openrouter",
        upstreamModel: "openai/fast",
        credentialsRef: "OPENROUTER_API_KEY",
        price: price("100000000", "400000000"),
      },
    ]),
    catalogueModel(
      "acme/small",
      [
        {
          provider: "openrouter",
          upstreamModel: "acme/small",
          credentialsRef: "OPENROUTER_API_KEY",
          price: price("100000000", "400000000"),
        },
      ],
      { contextLength: 1_000 },
    ),
  ],
  defaults: { embeddings: "" },
};

const http = new UpstreamHttp({ connectTimeoutMs: 1_000, headersTimeoutMs: 1_000, streamIdleTimeoutMs: 1_000, maxConnections: 0 });
const providers = openAiCompatibleProviders(http);
const identity: KeyIdentity = {
  projectId: "p",
  keyId: "k",
  rpmLimit: null,
  key: { rpmLimit: null, moneyLimits: false, expiresAtMs: 0, limitsKeyId: "k" },
};

function planWith(
  pin: Pin | undefined,
  body: Record<string, unknown>,
  health = new PathHealth({ errorHalfLifeMs: 30_000, failureThreshold: 1, cooldownMs: 30_000 }),
) {
  const context: PlanContext = {
    providers,
    health,
    credentials: keyPools({ OPENAI_API_KEY: "k1", OPENROUTER_API_KEY: "k2" }),
    maxAttempts: 4,
  };
  const request = openAiChat.parse({ messages: [{ role: "user", content: "hello" }], ...body });
  const plan = planCall(context, buildSnapshot(catalogue), "r", identity, openAiChat, request, undefined, { pin });
  return { plan, first: `${plan.targets[0]!.model.id} via ${plan.targets[0]!.path.provider}`, affinity: plan.trace.affinity };
}

const SMALL: Pin = { model: "acme/small", provider: "openrouter", upstreamModel: "acme/small" };
const FAST_VIA_OPENROUTER: Pin = { model: "openai/fast", provider: "openrouter", upstreamModel: "openai/fast" };

describe("a pin orders the targets", () => {
  it("no live pin: routing as ranked, affinity new", () => {
    const { first, affinity, plan } = planWith(undefined, { model: "auto" });
    expect([first, affinity]).toEqual(["openai/fast via openai", { state: "new" }]);
    expect(reasonHeader(plan.trace)).toBe("auto -> openai/fast via openai, 0 attempts");
  });

  it("auto: the pinned model first, whatever the ranking says; a model asked for: the pinned path first", () => {
    expect(planWith(SMALL, { model: "auto" })).toMatchObject({ first: "acme/small via openrouter", affinity: { state: "kept" } });
    const concrete = planWith(FAST_VIA_OPENROUTER, { model: "openai/fast" });
    expect(concrete.plan.targets.map((target) => target.path.provider)).toEqual(["openrouter", "openai"]);
    expect(reasonHeader(concrete.plan.trace)).toBe("openai/fast via openrouter, 0 attempts, affinity kept");
  });

  it("gives way, and says why, when its path's circuit is open or the path unhealthy", () => {
    const health = new PathHealth({ errorHalfLifeMs: 30_000, failureThreshold: 1, cooldownMs: 30_000 });
    health.record(PathHealth.key("openrouter", "acme/small"), { ok: false, latencyMs: 10 });
    expect(planWith(SMALL, { model: "auto" }, health)).toMatchObject({
      first: "openai/fast via openai",
      affinity: { state: "broken", reason: "circuit_open" },
    });
    // Failing its recent calls with its circuit still closed (its threshold not reached): unhealthy.
    const failing = new PathHealth({ errorHalfLifeMs: 30_000, failureThreshold: 100, cooldownMs: 30_000 });
    for (let call = 0; call < 6; call++) failing.record(PathHealth.key("openrouter", "acme/small"), { ok: false, latencyMs: 10 });
    expect(failing.view(PathHealth.key("openrouter", "acme/small")).circuit).toBe("closed");
    expect(planWith(SMALL, { model: "auto" }, failing).affinity).toEqual({ state: "broken", reason: "unhealthy" });
  });

  it("gives way when the request no longer fits the model, the service block excludes it, or another model is asked for", () => {
    const long = { model: "auto", messages: [{ role: "user", content: "word ".repeat(2_000) }] };
    expect(planWith(SMALL, long).affinity).toMatchObject({
      state: "broken",
      reason: "no_longer_fits",
      detail: expect.stringMatching(/context/),
    });
    expect(planWith(SMALL, { model: "auto", service: { allow: ["openai"] } }).affinity).toMatchObject({
      state: "broken",
      reason: "excluded_by_service",
    });
    expect(planWith(FAST_VIA_OPENROUTER, { model: "openai/fast", service: { paths: ["openai"] } }).affinity).toEqual({
      state: "broken",
      reason: "excluded_by_service",
    });
    expect(planWith(SMALL, { model: "openai/fast" }).affinity).toEqual({ state: "broken", reason: "model_changed" });
    // A model or path the catalogue no longer has (or this data plane cannot reach).
    const gone: Pin = { model: "acme/retired", provider: "openrouter", upstreamModel: "acme/retired" };
    expect(planWith(gone, { model: "auto" }).affinity).toEqual({ state: "broken", reason: "unavailable" });
    const pathGone: Pin = { model: "openai/fast", provider: "azure", upstreamModel: "fast" };
    expect(planWith(pathGone, { model: "openai/fast" }).affinity).toEqual({ state: "broken", reason: "unavailable" });
  });
});

describe("a pin's key group (the provider account whose key answered)", () => {
  /** A call planned with `pin`, its key taken from the openai pool (two accounts), answered; what was pinned. */
  function answered(pin: Pin | undefined, keyGroup: "acct-a" | "acct-b") {
    const { plan } = planWith(pin, { model: "openai/fast" });
    const pool = keyPools({ OPENAI_API_KEY: ["k-a;group=acct-a", "k-b;group=acct-b"] }).get("OPENAI_API_KEY")!;
    const call = new Call(plan, 0, undefined, { key: "conversation", source: "prefix" });
    call.key = pool.take(10, keyGroup);
    const puts: [Pin, boolean][] = [];
    const store: PinStore = {
      get: () => undefined,
      put: (_, put, __, kept) => puts.push([put, kept]),
      mode: "test",
      close: async () => {},
    };
    const turns = new CounterFamily(new Registry(), "turns", "turns", ["outcome", "reason"]);
    new CallAffinity(store, { pinTtlMs: 1_000, hourPinTtlMs: 2_000 }, turns).answered(call);
    return { plan, affinity: plan.trace.affinity, puts };
  }
  const OPENAI: Pin = { model: "openai/fast", provider: "openai", upstreamModel: "fast" };

  it("a kept pin's group is the plan's preferred group; a broken pin's is not", () => {
    expect(planWith({ ...OPENAI, group: "acct-b" }, { model: "openai/fast" }).plan.pinnedGroup).toBe("acct-b");
    expect(planWith({ ...SMALL, group: "acct-b" }, { model: "openai/fast" }).plan.pinnedGroup).toBeUndefined();
  });

  it("pins the group of the key that answered, keeping the pin when it is the pinned group", () => {
    const { affinity, puts } = answered({ ...OPENAI, group: "acct-a" }, "acct-a");
    expect(affinity).toEqual({ state: "kept" });
    expect(puts).toEqual([[{ ...OPENAI, group: "acct-a" }, true]]);
  });

  it("another account's key answered (none of the pinned group was usable): the pin gives way, key_group, and moves", () => {
    const { affinity, puts } = answered({ ...OPENAI, group: "acct-a" }, "acct-b");
    expect(affinity).toEqual({ state: "broken", reason: "key_group" });
    expect(puts).toEqual([[{ ...OPENAI, group: "acct-b" }, false]]);
  });

  it("a pin from before groups is kept, and written anew with its group", () => {
    const { affinity, puts } = answered(OPENAI, "acct-b");
    expect(affinity).toEqual({ state: "kept" });
    expect(puts).toEqual([[{ ...OPENAI, group: "acct-b" }, false]]);
  });
});

describe("CallAffinity: the pin's life after an answer", () => {
  /** An answered call of the planned first target, its upstream body as given. */
  function answeredWith(upstreamBody: string) {
    const puts: { ttlMs: number; kept: boolean }[] = [];
    const pins: PinStore = {
      get: () => undefined,
      put: (_key, _pin, ttlMs, kept) => puts.push({ ttlMs, kept }),
      mode: "test",
      close: async () => {},
    };
    const affinity = new CallAffinity(pins, { pinTtlMs: 300_000, hourPinTtlMs: 3_600_000 }, { series: () => ({ inc: () => {} }) } as never);
    const { plan } = planWith(SMALL, { model: "auto" });
    const target = plan.targets[0]!;
    const call = { conversation: { key: "c", source: "prefix" }, plan, target, upstream: { body: upstreamBody }, span: { set: () => {} } };
    affinity.answered(call as never);
    return puts[0]!;
  }

  it("lives the default 5 minutes, or an hour after a turn that asked for 1-hour cache writes", () => {
    expect(answeredWith('{"messages":[{"role":"user","content":"hi"}]}')).toEqual({ ttlMs: 300_000, kept: true });
    const hourLong = '{"system":[{"type":"text","text":"x","cache_control":{"type":"ephemeral","ttl":"1h"}}]}';
    expect(answeredWith(hourLong).ttlMs).toBe(3_600_000);
    // The words in a message are no request for it.
    expect(answeredWith('{"messages":[{"role":"user","content":"\\"ttl\\":\\"1h\\""}]}').ttlMs).toBe(300_000);
  });
});
