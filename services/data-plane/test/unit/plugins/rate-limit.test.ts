// The rate-limit plugin: model-calling routes (those with a dialect) are
// checked against the caller's limit; the answer is awaited after the body.
// Every case runs twice: the limiter answering later (Redis) and at once (an
// admission block or the local window: no promise).
import Fastify from "fastify";
import { beforeEach, describe, expect, it } from "vitest";
import { errorHandler } from "../../../src/app/plugins/error-handler";
import { rateLimit, rateLimitHooks } from "../../../src/app/plugins/rate-limit";
import type { KeyIdentity } from "../../../src/auth/key-cache";
import { openAiChat } from "../../../src/dialects/openai/openai-chat-dialect";
import type { RateDecision } from "../../../src/limits/rate-limiter";
import "../../../src/request-context";

/** Whether the limiter answers at once (its decision, not a promise) in the cases being run. */
let atOnce = false;

function app(decision: RateDecision | Error | ((subject: string) => RateDecision), identity: KeyIdentity, defaultRpmLimit = 600) {
  const checks: [project: string, limit: number][] = [];
  let rejections = 0;
  const instance = Fastify();
  void instance.register(errorHandler, { bodyLimitBytes: 1_000 });
  instance.addHook("onRequest", (request, _reply, done) => {
    request.identity = identity;
    done();
  });
  void instance.register(rateLimit, {
    hooks: rateLimitHooks({
      limiter: {
        check: (projectId, limit) => {
          checks.push([projectId, limit]);
          const answer = () => {
            if (decision instanceof Error) throw decision;
            return typeof decision === "function" ? decision(projectId) : decision;
          };
          return atOnce ? answer() : Promise.resolve().then(answer);
        },
      },
      defaultRpmLimit,
      rejections: {
        inc: () => {
          rejections++;
        },
      },
    }),
  });
  void instance.register(async (scope) => {
    scope.post("/v1/chat/completions", { config: { dialect: openAiChat } }, async () => ({ ok: true }));
    scope.get("/v1/models", async () => ({ ok: true }));
  });
  return { instance, checks, rejections: () => rejections };
}

const ALLOWED: RateDecision = { allowed: true, limit: 600, remaining: 599, resetSeconds: 60 };
const REFUSED: RateDecision = { allowed: false, limit: 600, remaining: 0, resetSeconds: 17 };
const ACME: KeyIdentity = {
  projectId: "acme",
  keyId: "k",
  rpmLimit: null,
  key: { rpmLimit: null, moneyLimits: false, expiresAtMs: 0, limitsKeyId: "k" },
};
const chat = { method: "POST" as const, url: "/v1/chat/completions", payload: { model: "auto" } };

describe.each([
  ["later", false],
  ["at once", true],
])("rateLimit, the limiter answering %s", (_mode, answersAtOnce) => {
  beforeEach(() => {
    atOnce = answersAtOnce;
  });

  it("checks a model call against the deployment default and sends the x-ratelimit headers", async () => {
    const { instance, checks } = app(ALLOWED, ACME);
    const response = await instance.inject(chat);
    expect(response.statusCode).toBe(200);
    expect(checks).toEqual([["acme", 600]]);
    expect(response.headers).toMatchObject({
      "x-ratelimit-limit-requests": "600",
      "x-ratelimit-remaining-requests": "599",
      "x-ratelimit-reset-requests": "60s",
    });
  });

  it("uses the project's own limit", async () => {
    const { instance, checks } = app(ALLOWED, { ...ACME, rpmLimit: 5 });
    await instance.inject(chat);
    expect(checks).toEqual([["acme", 5]]);
  });

  it("refuses over the limit with 429 rate_limit_exceeded and Retry-After, and counts it", async () => {
    const { instance, rejections } = app(REFUSED, ACME);
    const response = await instance.inject(chat);
    expect(response.statusCode).toBe(429);
    expect(response.json().error).toMatchObject({ type: "rate_limit_error", code: "rate_limit_exceeded" });
    expect(response.headers["retry-after"]).toBe("17");
    expect(rejections()).toBe(1);
  });

  it("checks nothing for a limit of 0 or a route that calls no model", async () => {
    const none = app(REFUSED, { ...ACME, rpmLimit: 0 });
    expect((await none.instance.inject(chat)).statusCode).toBe(200);
    const models = app(REFUSED, ACME);
    expect((await models.instance.inject({ url: "/v1/models" })).statusCode).toBe(200);
    expect([...none.checks, ...models.checks]).toEqual([]);
  });

  it("answers a bad body with 400 even when the check failed, with no unhandled rejection", async () => {
    const { instance } = app(new Error("redis gone"), ACME);
    const response = await instance.inject({ ...chat, headers: { "content-type": "application/json" }, payload: "{" });
    expect(response.statusCode).toBe(400);
  });

  describe("a key with its own limit", () => {
    const KEYED: KeyIdentity = { ...ACME, key: { ...ACME.key, rpmLimit: 5, limitsKeyId: "key_next" } };
    const decisions = (key: RateDecision, project: RateDecision) => (subject: string) => (subject === "acme" ? project : key);

    it("checks the key's window (its successor's after a rotation) first, then the project's, and shows the tighter", async () => {
      const { instance, checks } = app(decisions({ ...ALLOWED, limit: 5, remaining: 2 }, ALLOWED), KEYED);
      const response = await instance.inject(chat);
      expect(response.statusCode).toBe(200);
      expect(checks).toEqual([
        ["key_next", 5],
        ["acme", 600],
      ]);
      expect(response.headers).toMatchObject({ "x-ratelimit-limit-requests": "5", "x-ratelimit-remaining-requests": "2" });
    });

    it("refuses for the key without taking from the project's minute, and says so", async () => {
      const { instance, checks, rejections } = app(decisions({ ...REFUSED, limit: 5 }, ALLOWED), KEYED);
      const response = await instance.inject(chat);
      expect(response.statusCode).toBe(429);
      expect(response.json().error).toMatchObject({ code: "rate_limit_exceeded", message: expect.stringContaining("this API key") });
      expect(checks).toEqual([["key_next", 5]]);
      expect(rejections()).toBe(1);
    });

    it("refuses for the project when the key is within its own limit", async () => {
      const { instance } = app(decisions({ ...ALLOWED, limit: 5 }, REFUSED), KEYED);
      const response = await instance.inject(chat);
      expect(response.statusCode).toBe(429);
      expect(response.json().error.message).toContain("this project");
    });

    it("checks only the key's window when the project has no limit", async () => {
      const { instance, checks } = app(decisions({ ...ALLOWED, limit: 5 }, REFUSED), KEYED, 0);
      expect((await instance.inject(chat)).statusCode).toBe(200);
      expect(checks).toEqual([["key_next", 5]]);
    });
  });
});
