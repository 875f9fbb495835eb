// The auth plugin: a /v1 request needs a valid key; every answer carries
// x-request-id; a key that cannot be checked is the checker's error.
import Fastify from "fastify";
import { describe, expect, it } from "vitest";
import { auth, type KeyValidation } from "../../../src/app/plugins/auth";
import { errorHandler } from "../../../src/app/plugins/error-handler";
import type { KeyIdentity } from "../../../src/auth/key-cache";
import { controlPlaneUnavailable } from "../../../src/errors";
import "../../../src/request-context";

const ACME: KeyIdentity = { projectId: "acme", keyId: "key_1", rpmLimit: null };

async function app(keys: KeyValidation) {
  const instance = Fastify({ genReqId: () => "req-1" });
  await instance.register(errorHandler, { bodyLimitBytes: 1_000 });
  await instance.register(auth, { keys });
  instance.get("/v1/whoami", async (request) => request.identity);
  return instance;
}

const known: KeyValidation = { validate: async (key) => (key === "sk-good" ? ACME : undefined) };

describe("auth", () => {
  it("admits a valid key and gives its identity to the route", async () => {
    const response = await (await app(known)).inject({ url: "/v1/whoami", headers: { authorization: "Bearer sk-good" } });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual(ACME);
    expect(response.headers["x-request-id"]).toBe("req-1");
  });

  it("takes the key from x-api-key (Anthropic's clients) when there is no Authorization header", async () => {
    const instance = await app(known);
    const good = await instance.inject({ url: "/v1/whoami", headers: { "x-api-key": "sk-good" } });
    expect(good.statusCode).toBe(200);
    expect(good.json()).toEqual(ACME);
    const bad = await instance.inject({ url: "/v1/whoami", headers: { "x-api-key": "sk-bad" } });
    expect(bad.statusCode).toBe(401);
    // An Authorization header decides, whatever x-api-key says.
    const both = await instance.inject({ url: "/v1/whoami", headers: { authorization: "Basic x", "x-api-key": "sk-good" } });
    expect(both.statusCode).toBe(401);
  });

  it.each([
    ["no header", undefined],
    ["another scheme", "Basic sk-good"],
    ["an unknown key", "Bearer sk-bad"],
    ["two tokens", "Bearer sk-good extra"],
  ])("refuses %s with 401 invalid_api_key, with x-request-id", async (_case, authorization) => {
    const response = await (await app(known)).inject({ url: "/v1/whoami", headers: authorization ? { authorization } : {} });
    expect(response.statusCode).toBe(401);
    expect(response.json().error).toMatchObject({ type: "authentication_error", code: "invalid_api_key" });
    expect(response.headers["x-request-id"]).toBe("req-1");
  });

  it("answers 503 when the key cannot be checked", async () => {
    const response = await (
      await app({
        validate: async () => {
          throw controlPlaneUnavailable();
        },
      })
    ).inject({ url: "/v1/whoami", headers: { authorization: "Bearer sk-good" } });
    expect(response.statusCode).toBe(503);
    expect(response.json().error.code).toBe("control_plane_unavailable");
  });
});
