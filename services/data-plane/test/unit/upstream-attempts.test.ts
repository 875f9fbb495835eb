// The attempt loop against scripted upstream answers and a recording billing
// client: which targets are sent to, in which order, and that the hold is
// placed once and closed exactly once (docs/resilience.md).
import type { Catalogue__Output } from "@gateway/proto";
import { describe, expect, it } from "vitest";
import type { KeyIdentity } from "../../src/auth/key-cache";
import { buildSnapshot } from "../../src/catalogue/catalogue-snapshot";
import type { GatewayError } from "../../src/errors";
import type { Gateway } from "../../src/gateway";
import { prepareCall } from "../../src/proxy/prepare-call";
import { UpstreamAttempts } from "../../src/proxy/upstream-attempts";
import { UpstreamProvider } from "../../src/providers/upstream-provider";
import { PathHealth } from "../../src/routing/path-health";
import { catalogueModel } from "../support/catalogue-model";
import { UpstreamAbort, type ClientLink } from "../../src/routes/client-link";

const price = { inputNanoPerM: "100000000", outputNanoPerM: "400000000", verified: true, source: "test" };

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

/** A gateway whose upstream answers from `script` in order (then 200), recording what was sent and what billing saw. */
function harness(script: Answer[], options: { maxAttempts?: number; budgetMs?: number } = {}) {
  const sent: string[] = [];
  const money: string[] = [];
  const http = {
    async post(url: string, _headers: unknown, body: string) {
      sent.push(`${new URL(url).hostname} ${JSON.parse(body).model as string}`);
      const answer = script.shift() ?? 200;
      if (answer === "reset") throw Object.assign(new Error("socket hang up"), { code: "ECONNRESET" });
      const { status, retryAfter } = typeof answer === "number" ? { status: answer, retryAfter: undefined } : answer;
      return {
        statusCode: status,
        headers: retryAfter ? { "retry-after": retryAfter } : {},
        body: { text: async () => '{"error":{"message":"upstream secret","type":"server_error"}}', dump: async () => {} },
      };
    },
  };
  const providers = new Map(
    ["openai", "openrouter"].map((name) => [
      name,
      new UpstreamProvider({ name, baseUrl: `http://${name}.invalid/v1`, protocol: "openai-compatible", extraFields: [] }, http as never),
    ]),
  );
  const gateway = {
    catalogue: { current: buildSnapshot(catalogue) },
    providers,
    health: new PathHealth({ errorHalfLifeMs: 1, failureThreshold: 3, cooldownMs: 60_000 }),
    // Every metric family gives series that accept and ignore their samples.
    metrics: new Proxy({}, { get: () => ({ series: () => ({ inc: () => {}, observe: () => {} }) }) }),
    config: {
      credentials: new Map(),
      upstream: { maxAttempts: options.maxAttempts ?? 4, retryWaitBudgetMs: options.budgetMs ?? 1_000, retryBackoffMs: 1 },
    },
    billing: {
      reserve: async (request: { amountNano: bigint }) => {
        money.push("reserve");
        return request.amountNano;
      },
      settle: async () => {
        money.push("settle");
        return 1n;
      },
      release: async () => void money.push("release"),
    },
  } as unknown as Gateway;
  return { gateway, sent, money };
}

const identity = { projectId: "p", keyId: "k" } as KeyIdentity;
const client = (gone = new AbortController()): ClientLink => ({
  get gone() {
    return gone.signal.aborted;
  },
  goneSignal: () => gone.signal,
  upstream: new UpstreamAbort(),
});

async function run(script: Answer[], body: Record<string, unknown> = {}, options: { maxAttempts?: number; budgetMs?: number } = {}) {
  const { gateway, sent, money } = harness(script, options);
  const call = prepareCall(gateway, "req", identity, { model: "auto", messages: [{ role: "user", content: "hi" }], ...body }, "chat");
  const attempts = new UpstreamAttempts(gateway, call, client());
  const result = await attempts.open().then(
    (response) => ({ status: response.statusCode }),
    (error: GatewayError) => ({ error: [error.status, error.type] }),
  );
  return {
    result,
    sent,
    money,
    outcomes: call.trace.attempts.map((attempt) => `${attempt.outcome} ${attempt.model} ${attempt.path}`),
    call,
  };
}

describe("UpstreamAttempts", () => {
  it("retries a transient failure once on the same path, and the hold stays for the answer", async () => {
    const { result, sent, money, outcomes } = await run([503]);
    expect(result).toEqual({ status: 200 });
    expect(sent).toEqual(["openai.invalid a", "openai.invalid a"]);
    expect(outcomes).toEqual(["http_503 openai/a openai", "ok openai/a openai"]);
    expect(money).toEqual(["reserve"]); // the caller settles what the answer cost
  });

  it("then the model's next path, then the next model", async () => {
    const { result, sent, call } = await run([502, 502, 502]);
    expect(result).toEqual({ status: 200 });
    expect(sent).toEqual(["openai.invalid a", "openai.invalid a", "openrouter.invalid openai/a", "openrouter.invalid acme/b"]);
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
      expect(answered.sent).toEqual(["openai.invalid a", "openrouter.invalid openai/a"]);
      const refused = await run([status, status, status, status]);
      expect(refused.result).toEqual({ error: [status, "upstream_rejected"] });
      expect(refused.sent).toEqual(["openai.invalid a", "openrouter.invalid openai/a", "openrouter.invalid acme/b"]);
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
    expect(sent).toEqual(["openai.invalid a", "openrouter.invalid openai/a"]);
    expect(Date.now() - started).toBeLessThan(30_000);
  });

  it("skips a path whose circuit is open", async () => {
    const { gateway, sent } = harness([]);
    for (let i = 0; i < 3; i++) gateway.health.record(PathHealth.key("openai", "a"), { ok: false, latencyMs: 1 });
    const call = prepareCall(gateway, "req", identity, { model: "openai/a", messages: [{ role: "user", content: "hi" }] }, "chat");
    await new UpstreamAttempts(gateway, call, client()).open();
    expect(sent).toEqual(["openrouter.invalid openai/a"]);
    expect(call.trace.attempts.map((attempt) => attempt.outcome)).toEqual(["ok"]); // the open path was ordered last, so never reached
  });

  it("sends nothing more when the client leaves during a retry's wait, and releases the hold", async () => {
    const { gateway, sent, money } = harness([{ status: 503, retryAfter: "1" }]);
    const call = prepareCall(gateway, "req", identity, { model: "auto", messages: [{ role: "user", content: "hi" }] }, "chat");
    const gone = new AbortController();
    const opening = new UpstreamAttempts(gateway, call, client(gone)).open();
    setTimeout(() => gone.abort(), 50);
    await expect(opening).rejects.toMatchObject({ status: 499 });
    expect(sent).toHaveLength(1);
    expect(money).toEqual(["reserve", "release"]);
  });
});
