// The attempt loop against a loopback upstream that answers from a script,
// and a recording billing client: which targets are sent to, in which order,
// and that the hold is placed once and closed exactly once (docs/resilience.md).
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

const price = protoPrice("100000000", "400000000");

const model = (id: string, paths: [provider: string, upstream: string][]) =>
  catalogueModel(
    id,
    paths.map(([provider, upstreamModel]) => ({ provider, upstreamModel, credentialsRef: "", price })),
    { maxOutputTokens: 1_000 },
  );

const catalogue: Catalogue__Output = {
  revision: "r",
  models: [
    model("openai/a", [
      ["openai", "a"],
      ["openrouter", "openai/a"],
    ]),
    model("acme/b", [["openrouter", "acme/b"]]),
  ],
  defaults: { embeddings: "" },
};

type Answer = number | { status: number; retryAfter?: string } | "reset";

/** The loopback upstream: each request takes the next scripted answer (then 200); /openai/... and /openrouter/... are the two providers. */
let script: Answer[] = [];
let sent: string[] = [];
let server: Server;
let baseUrl = "";

beforeAll(async () => {
  server = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk) => {
      body += chunk;
    });
    request.on("end", () => {
      sent.push(`${request.url!.split("/")[1]} ${JSON.parse(body).model as string}`);
      const answer = script.shift() ?? 200;
      if (answer === "reset") return request.socket.destroy();
      const { status, retryAfter } = typeof answer === "number" ? { status: answer, retryAfter: undefined } : answer;
      response.writeHead(status, { "content-type": "application/json", ...(retryAfter ? { "retry-after": retryAfter } : {}) });
      response.end(status === 200 ? "{}" : '{"error":{"message":"upstream secret","type":"server_error"}}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const http = new UpstreamHttp({
  connectTimeoutMs: 1_000,
  headersTimeoutMs: 5_000,
  streamIdleTimeoutMs: 5_000,
  maxConnections: 0,
});

/** A plan, its attempts and the money they move, against `answers` in order (then 200). */
function harness(answers: Answer[], options: { maxAttempts?: number; budgetMs?: number } = {}) {
  script = [...answers];
  sent = [];
  const money: string[] = [];
  const billing: CallBilling = {
    reserve: async (hold) => {
      money.push("reserve");
      return hold.amountNano;
    },
    checkSpend: async () => {},
    settle: async () => {
      money.push("settle");
      return 1n;
    },
    release: async () => {
      money.push("release");
    },
  };
  const providers = openAiCompatibleProviders(http, { base: baseUrl });
  const health = new PathHealth({ errorHalfLifeMs: 1, failureThreshold: 3, cooldownMs: 60_000 });
  const registry = new Registry();
  const metrics = attemptMetrics(registry);
  const settings = { maxAttempts: options.maxAttempts ?? 4, retryWaitBudgetMs: options.budgetMs ?? 1_000, retryBackoffMs: 1 };
  const unbilled = new UsdCounterFamily(new Registry(), "unbilled", "unbilled", ["model", "access_path"]);
  const context = {
    health,
    settings,
    metrics,
    money: new CallMoney(billing, metrics.overhead.series("after_upstream"), unbilled, { settled: () => {} }),
  };
  const plan = (body: Record<string, unknown>) =>
    new Call(
      planCall(
        { providers, health, credentials: new Map(), maxAttempts: settings.maxAttempts },
        buildSnapshot(catalogue),
        "req",
        identity,
        openAiChat,
        openAiChat.parse({ messages: [{ role: "user", content: "hi" }], ...body }),
      ),
      performance.now(),
    );
  return { context, health, plan, money };
}

const identity: KeyIdentity = {
  projectId: "p",
  keyId: "k",
  rpmLimit: null,
  key: { rpmLimit: null, moneyLimits: false, expiresAtMs: 0, limitsKeyId: "k" },
};
const client = (gone = new AbortController()): ClientLink => ({
  get gone() {
    return gone.signal.aborted;
  },
  goneSignal: () => gone.signal,
  upstream: new UpstreamAbort(),
});

async function run(answers: Answer[], body: Record<string, unknown> = {}, options: { maxAttempts?: number; budgetMs?: number } = {}) {
  const { context, plan, money } = harness(answers, options);
  const call = plan({ model: "auto", ...body });
  const attempts = new UpstreamAttempts(context, call, client());
  const result = await attempts.open().then(
    async (response) => {
      await response.body.dump();
      return { status: response.statusCode };
    },
    (error: GatewayError) => ({ error: [error.status, error.type] }),
  );
  return {
    result,
    sent: [...sent],
    money,
    outcomes: call.plan.trace.attempts.map((attempt) => `${attempt.outcome} ${attempt.model} ${attempt.path}`),
    call,
  };
}

describe("UpstreamAttempts", () => {
  it("retries a transient failure once on the same path, and the hold stays for the answer", async () => {
    const { result, sent, money, outcomes } = await run([503]);
    expect(result).toEqual({ status: 200 });
    expect(sent).toEqual(["openai a", "openai a"]);
    expect(outcomes).toEqual(["http_503 openai/a openai", "ok openai/a openai"]);
    expect(money).toEqual(["reserve"]); // the caller settles what the answer cost
  });

  it("then the model's next path, then the next model", async () => {
    const { result, sent, call } = await run([502, 502, 502]);
    expect(result).toEqual({ status: 200 });
    expect(sent).toEqual(["openai a", "openai a", "openrouter openai/a", "openrouter acme/b"]);
    expect(call.target.model.id).toBe("acme/b");
  });

  it("with route pinned, never another model; the last failure is answered and the hold released once", async () => {
    const { result, sent, money } = await run([502, 502, 502], { service: { route: "pinned" } });
    expect(result).toEqual({ error: [502, "upstream_error"] });
    expect(sent).toHaveLength(3);
    expect(money).toEqual(["reserve", "release"]);
  });

  it("answers 504 when every attempt found the upstream unreachable, after the attempt limit", async () => {
    const { result, sent, money } = await run(["reset", "reset", "reset", "reset", "reset"], {}, { maxAttempts: 3 });
    expect(result).toEqual({ error: [504, "upstream_error"] });
    expect(sent).toHaveLength(3);
    expect(money).toEqual(["reserve", "release"]);
  });

  it.each([401, 402, 403, 404])(
    "moves on from a path's own refusal (%i) without retrying it, and answers with it when nothing else does",
    async (status) => {
      const answered = await run([status]);
      expect(answered.result).toEqual({ status: 200 });
      expect(answered.sent).toEqual(["openai a", "openrouter openai/a"]);
      const refused = await run([status, status, status, status]);
      expect(refused.result).toEqual({ error: [status, "upstream_rejected"] });
      expect(refused.sent).toEqual(["openai a", "openrouter openai/a", "openrouter acme/b"]);
      expect(refused.money).toEqual(["reserve", "release"]);
    },
  );

  it.each([301, 307, 308, 204])(
    "never relays an upstream %i (a redirect, or a 2xx other than 200, is no answer): the next path, and 502 upstream_error when nothing else answers",
    async (status) => {
      const answered = await run([status]);
      expect(answered.result).toEqual({ status: 200 });
      expect(answered.sent).toEqual(["openai a", "openrouter openai/a"]);
      expect(answered.outcomes).toEqual([`http_${status} openai/a openai`, "ok openai/a openrouter"]);
      const refused = await run([status, status, status, status]);
      expect(refused.result).toEqual({ error: [502, "upstream_error"] });
      expect(refused.sent).toEqual(["openai a", "openrouter openai/a", "openrouter acme/b"]);
      expect(refused.money).toEqual(["reserve", "release"]);
    },
  );

  it("returns a non-transient refusal at once", async () => {
    const { result, sent, money } = await run([400]);
    expect(result).toEqual({ error: [400, "upstream_rejected"] });
    expect(sent).toHaveLength(1);
    expect(money).toEqual(["reserve", "release"]);
  });

  it("does not wait for a Retry-After beyond the budget: the next path at once", async () => {
    const started = Date.now();
    const { sent } = await run([{ status: 429, retryAfter: "30" }], {}, { budgetMs: 1_000 });
    expect(sent).toEqual(["openai a", "openrouter openai/a"]);
    expect(Date.now() - started).toBeLessThan(30_000);
  });

  it("skips a path whose circuit is open", async () => {
    const { context, health, plan } = harness([]);
    for (let i = 0; i < 3; i++) health.record(PathHealth.key("openai", "a"), { ok: false, latencyMs: 1 });
    const call = plan({ model: "openai/a" });
    await (await new UpstreamAttempts(context, call, client()).open()).body.dump();
    expect(sent).toEqual(["openrouter openai/a"]);
    expect(call.plan.trace.attempts.map((attempt) => attempt.outcome)).toEqual(["ok"]); // the open path was ordered last, so never reached
  });

  it("sends nothing more when the client leaves during a retry's wait, and releases the hold", async () => {
    const { context, plan, money } = harness([{ status: 503, retryAfter: "1" }]);
    const call = plan({ model: "auto" });
    const gone = new AbortController();
    const opening = new UpstreamAttempts(context, call, client(gone)).open();
    setTimeout(() => gone.abort(), 50);
    await expect(opening).rejects.toMatchObject({ status: 499 });
    expect(sent).toHaveLength(1);
    expect(money).toEqual(["reserve", "release"]);
  });
});
