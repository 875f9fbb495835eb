// The auth plugin: a /v1 request needs a valid key; every answer carries
// x-request-id; a key that cannot be checked is the checker's error.
import Fastify from "fastify";
import { describe, expect, it } from "vitest";
import { auth, authHook, type KeyValidation } from "../../../src/app/plugins/auth";
import { errorHandler } from "../../../src/app/plugins/error-handler";
import type { KeyIdentity } from "../../../src/auth/key-cache";
import { controlPlaneUnavailable } from "../../../src/errors";
import "../../../src/request-context";

const ACME: KeyIdentity = {
  projectId: "acme",
  keyId: "key_1",
  rpmLimit: null,
  key: { rpmLimit: null, moneyLimits: false, expiresAtMs: 0, limitsKeyId: "key_1" },
};

async function app(keys: KeyValidation) {
  const instance = Fastify({ genReqId: () => "req-1" });
  await instance.register(errorHandler, { bodyLimitBytes: 1_000 });
  await instance.register(auth, { hook: authHook(keys) });
  instance.get("/v1/whoami", async (request) => request.identity);
  return instance;
}

const GOOD = `sk_acme_${"a".repeat(43)}`;
const UNKNOWN = `sk_acme_${"b".repeat(43)}`;
const known: KeyValidation = { validate: async (key) => (key === GOOD ? ACME : undefined) };

describe("auth", () => {
  it("admits a valid key and gives its identity to the route", async () => {
    const response = await (await app(known)).inject({ url: "/v1/whoami", headers: { authorization: `Bearer ${GOOD}` } });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual(ACME);
    expect(response.headers["x-request-id"]).toBe("req-1");
  });

  it("takes the key from x-api-key (Anthropic's clients) when there is no Authorization header", async () => {
    const instance = await app(known);
    const good = await instance.inject({ url: "/v1/whoami", headers: { "x-api-key": GOOD } });
    expect(good.statusCode).toBe(200);
    expect(good.json()).toEqual(ACME);
    const bad = await instance.inject({ url: "/v1/whoami", headers: { "x-api-key": UNKNOWN } });
    expect(bad.statusCode).toBe(401);
    // An Authorization header decides, whatever x-api-key says.
    const both = await instance.inject({ url: "/v1/whoami", headers: { authorization: "Basic x", "x-api-key": GOOD } });
    expect(both.statusCode).toBe(401);
  });

  it.each([
    ["no header", undefined],
    ["another scheme", `Basic ${GOOD}`],
    ["an unknown key", `Bearer ${UNKNOWN}`],
    ["two tokens", `Bearer ${GOOD} extra`],
  ])("refuses %s with 401 invalid_api_key, with x-request-id", async (_case, authorization) => {
    const response = await (await app(known)).inject({ url: "/v1/whoami", headers: authorization ? { authorization } : {} });
    expect(response.statusCode).toBe(401);
    expect(response.json().error).toMatchObject({ type: "authentication_error", code: "invalid_api_key" });
    expect(response.headers["x-request-id"]).toBe("req-1");
  });

  it.each([
    ["not sk_<project>_<secret>", "Bearer sk-proj-abc"],
    ["a secret too short", "Bearer sk_acme_abc"],
    ["an upper-case project", `Bearer sk_ACME_${"a".repeat(43)}`],
  ])("refuses a malformed key (%s) with 401 without asking the control plane, even while it is away", async (_case, authorization) => {
    let asked = 0;
    const away: KeyValidation = {
      validate: async () => {
        asked++;
        throw controlPlaneUnavailable();
      },
    };
    const response = await (await app(away)).inject({ url: "/v1/whoami", headers: { authorization } });
    expect(response.statusCode).toBe(401);
    expect(response.json().error.code).toBe("invalid_api_key");
    expect(asked).toBe(0);
  });

  it("answers 503 when the key cannot be checked", async () => {
    const response = await (
      await app({
        validate: async () => {
          throw controlPlaneUnavailable();
        },
      })
    ).inject({ url: "/v1/whoami", headers: { authorization: `Bearer ${GOOD}` } });
    expect(response.statusCode).toBe(503);
    expect(response.json().error.code).toBe("control_plane_unavailable");
  });
});
