// The attempt loop on paths with pools of keys, against a loopback upstream that answers by the key a
// request carries (docs/providers.md, "Pools of keys"): a 429 or a refusal of one key moves the call at
// once to another key of the same path, without charging the path; only when no such key is usable does
// the call go on as before (the same-path retry, the next path), all within the attempt limit.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Catalogue__Output } from "@gateway/proto";
import { Registry } from "prom-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { KeyIdentity } from "../../src/auth/key-cache";
import { buildSnapshot } from "../../src/catalogue/catalogue-snapshot";
import { openAiChat } from "../../src/dialects/openai/openai-chat-dialect";
import { Call } from "../../src/engine/call";
import { type CallBilling, CallMoney } from "../../src/engine/call-money";
import { planCall } from "../../src/engine/call-plan";
import { type ClientLink, UpstreamAbort } from "../../src/engine/client-link";
import { UpstreamAttempts } from "../../src/engine/upstream-attempts";
import type { GatewayError } from "../../src/errors";
import { UsdCounterFamily } from "../../src/metric-families";
import { attemptMetrics } from "../support/attempt-metrics";
import { openAiCompatibleProviders } from "../support/upstream-providers";
import { PathHealth } from "../../src/routing/path-health";
import { UpstreamHttp } from "../../src/upstream/upstream-http";
import { catalogueModel, protoPrice } from "../support/catalogue-model";
import { keyPools } from "../support/key-pools";

const price = protoPrice("100000000", "400000000");
const catalogue: Catalogue__Output = {
  revision: "r",
  models: [
    catalogueModel(
      "openai/a",
      [
        { provider: "openai", upstreamModel: "a", credentialsRef: "OPENAI_API_KEY", price },
        { provider: "openrouter", upstreamModel: "openai/a", credentialsRef: "OPENROUTER_API_KEY", price },
      ],
      { maxOutputTokens: 1_000 },
    ),
  ],
  defaults: { embeddings: "" },
};

type Answer = number | { status: number; retryAfter?: string };

/** Each key's scripted answers in order (then 200); every request as "<provider> <key>". */
let byKey = new Map<string, Answer[]>();
let sent: string[] = [];
let server: Server;
let baseUrl = "";

beforeAll(async () => {
  server = createServer((request, response) => {
    request.resume();
    request.on("end", () => {
      const key = String(request.headers.authorization).replace(/^Bearer /, "");
      sent.push(`${request.url!.split("/")[1]} ${key}`);
      const answer = byKey.get(key)?.shift() ?? 200;
      const { status, retryAfter } = typeof answer === "number" ? { status: answer, retryAfter: undefined } : answer;
      response.writeHead(status, { "content-type": "application/json", ...(retryAfter ? { "retry-after": retryAfter } : {}) });
      response.end(status === 200 ? "{}" : '{"error":{"message":"no","type":"rate_limit_error"}}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const http = new UpstreamHttp({ connectTimeoutMs: 1_000, headersTimeoutMs: 5_000, streamIdleTimeoutMs: 5_000, maxConnections: 0 });
const identity: KeyIdentity = {
  projectId: "p",
  keyId: "k",
  rpmLimit: null,
  key: { rpmLimit: null, moneyLimits: false, expiresAtMs: 0, limitsKeyId: "k" },
};
const client = (): ClientLink => ({ gone: false, goneSignal: () => new AbortController().signal, upstream: new UpstreamAbort() });

/** One call through `openai` (the pool `openai`) then `openrouter` (the key "or"), with the keys answering `answers`. */
async function run(openai: string, answers: Record<string, Answer[]>, options: { maxAttempts?: number; pinnedGroup?: string } = {}) {
  byKey = new Map(Object.entries(answers).map(([key, list]) => [key, [...list]]));
  sent = [];
  const credentials = keyPools({ OPENAI_API_KEY: openai.split(","), OPENROUTER_API_KEY: "or" });
  const providers = openAiCompatibleProviders(http, { base: baseUrl });
  const health = new PathHealth({ errorHalfLifeMs: 60_000, failureThreshold: 3, cooldownMs: 60_000 });
  const registry = new Registry();
  const metrics = attemptMetrics(registry);
  const billing: CallBilling = {
    reserve: async (hold) => hold.amountNano,
    checkSpend: async () => {},
    settle: async () => 1n,
    release: async () => {},
  };
  const settings = { maxAttempts: options.maxAttempts ?? 4, retryWaitBudgetMs: 5_000, retryBackoffMs: 1 };
  const money = new CallMoney(
    billing,
    metrics.overhead.series("after_upstream"),
    new UsdCounterFamily(new Registry(), "u", "u", ["m", "p"]),
    {
      settled: () => {},
    },
  );
  const plan = planCall(
    { providers, health, credentials, maxAttempts: settings.maxAttempts },
    buildSnapshot(catalogue),
    "req",
    identity,
    openAiChat,
    openAiChat.parse({ model: "openai/a", messages: [{ role: "user", content: "hi" }] }),
  );
  if (options.pinnedGroup) plan.pinnedGroup = options.pinnedGroup;
  const call = new Call(plan, performance.now());
  const attempts = new UpstreamAttempts({ health, settings, metrics, money }, call, client());
  const started = performance.now();
  const result = await attempts.open().then(
    async (response) => {
      await response.body.dump();
      attempts.answered();
      return { status: response.statusCode };
    },
    (error: GatewayError) => ({ error: [error.status, error.type] }),
  );
  const pool = credentials.get("OPENAI_API_KEY")!;
  return {
    result,
    ms: performance.now() - started,
    sent: [...sent],
    outcomes: plan.trace.attempts.map((attempt) => `${attempt.outcome} ${attempt.path}`),
    states: Object.fromEntries(pool.view().keys.map((key, index) => [openai.split(",")[index]!.split(";")[0], key.state])),
    circuit: health.circuitViews().find((view) => view.path.startsWith("openai/")),
    fallbacks: (await registry.getMetricsAsJSON()).find((metric) => metric.name === "fallbacks")!.values,
    answeredWith: call.key?.apiKey,
  };
}

describe("UpstreamAttempts on a pool of keys", () => {
  it("moves a 429 at once to another key of the same group, without charging the path", async () => {
    const { result, sent, outcomes, states, circuit, ms, fallbacks } = await run("a;group=acct,b;group=acct", {
      a: [{ status: 429, retryAfter: "3" }],
    });
    expect(result).toEqual({ status: 200 });
    expect(sent).toEqual(["openai a", "openai b"]);
    expect(outcomes).toEqual(["http_429 openai", "ok openai"]);
    expect(ms).toBeLessThan(1_000); // no wait for the Retry-After: another key was there
    expect(states).toEqual({ a: "cooling", b: "active" });
    expect(circuit?.consecutive_failures ?? 0).toBe(0);
    expect(fallbacks).toEqual([]); // a key switch is neither a path nor a model fallback
  });

  it("with no usable key left in the group, goes on as before: the same-path retry after the Retry-After, then the next path", async () => {
    const { result, sent, outcomes, ms, circuit } = await run("a;group=one,b;group=two", {
      a: [{ status: 429, retryAfter: "1" }],
      b: [503],
    });
    expect(result).toEqual({ status: 200 });
    // The retry waited a's second, then took b (a rests; b, another account, is usable); b failed: the next path.
    expect(sent).toEqual(["openai a", "openai b", "openrouter or"]);
    expect(outcomes).toEqual(["http_429 openai", "http_503 openai", "ok openrouter"]);
    expect(ms).toBeGreaterThanOrEqual(1_000);
    expect(circuit?.consecutive_failures).toBe(2);
  });

  it("takes a refused key out and moves to another key of the pool at once, whatever its group", async () => {
    const { result, sent, outcomes, states } = await run("a;group=one,b;group=two,c;group=two", { a: [401] });
    expect(result).toEqual({ status: 200 });
    expect(sent).toEqual(["openai a", "openai b"]);
    expect(outcomes).toEqual(["http_401 openai", "ok openai"]);
    expect(states).toEqual({ a: "refused", b: "active", c: "active" });
  });

  it("stays within the attempt limit: every key rate limited, the caller gets the upstream's 429", async () => {
    const limited = { status: 429, retryAfter: "30" };
    const { result, sent } = await run(
      "a;group=g,b;group=g,c;group=g",
      { a: [limited], b: [limited], c: [limited], or: [limited] },
      { maxAttempts: 3 },
    );
    expect(result).toEqual({ error: [429, "rate_limit_error"] });
    expect(sent).toEqual(["openai a", "openai b", "openai c"]);
  });

  it("a pool of one keeps the behaviour of a single key: its 429 is the path's, retried after the Retry-After", async () => {
    const { result, sent, outcomes, circuit } = await run("solo", { solo: [{ status: 429, retryAfter: "1" }] });
    expect(result).toEqual({ status: 200 });
    expect(sent).toEqual(["openai solo", "openai solo"]);
    expect(outcomes).toEqual(["http_429 openai", "ok openai"]);
    expect(circuit?.consecutive_failures).toBe(0); // the success after it reset the count it made
  });

  it("sends the conversation's pinned group first on its pinned target", async () => {
    const { sent, answeredWith } = await run("a;group=one,b;group=two", {}, { pinnedGroup: "two" });
    expect(sent).toEqual(["openai b"]);
    expect(answeredWith).toBe("b");
  });
});
