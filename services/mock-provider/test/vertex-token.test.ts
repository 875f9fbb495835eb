// The Vertex persona's OAuth2 token endpoint and bearer check: a JWT signed
// with the service account the mock made is exchanged for a token the model
// routes accept; a wrong key, a missing or an unknown token are refused as Google does.
import { generateKeyPairSync, sign } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fixtureJson, getJson, type Json, type Mock, startMock } from "./helpers";

const SCOPE = "https://www.googleapis.com/auth/cloud-platform";
const GEMINI = "/vertex/v1/projects/p1/locations/global/publishers/google/models/gemini-2.5-flash:generateContent";

let mock: Mock;
let account: Json;
beforeAll(async () => {
  mock = await startMock();
  account = (await getJson(mock, "/_mock/vertex/service-account")).body;
});
afterAll(() => mock.close());

/** An RS256 JWT-bearer assertion, as Google's client libraries sign it. */
function assertion(privateKey: string, claims: Json = {}): string {
  const iat = Math.floor(Date.now() / 1000);
  const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
  const unsigned = `${encode({ alg: "RS256", typ: "JWT", kid: account.private_key_id })}.${encode({
    iss: account.client_email,
    scope: SCOPE,
    aud: account.token_uri,
    iat,
    exp: iat + 3600,
    ...claims,
  })}`;
  return `${unsigned}.${sign("RSA-SHA256", Buffer.from(unsigned), privateKey).toString("base64url")}`;
}

async function exchange(jwt: string): Promise<{ status: number; body: Json }> {
  const res = await fetch(`${mock.url}/vertex/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ grant_type: "urn:ietf:params:oauth:grant-type:jwt-bearer", assertion: jwt }).toString(),
  });
  return { status: res.status, body: (await res.json()) as Json };
}

const generate = (authorization?: string) =>
  fetch(mock.url + GEMINI, {
    method: "POST",
    headers: { "content-type": "application/json", ...(authorization ? { authorization } : {}) },
    body: JSON.stringify({ contents: [{ role: "user", parts: [{ text: "Hi" }] }] }),
  });

describe("vertex token endpoint", () => {
  it("hands out a service-account key file pointing at the mock", () => {
    expect(account).toMatchObject({ type: "service_account", project_id: "mock-project", token_uri: `${mock.url}/vertex/token` });
    expect(account.private_key).toMatch(/^-----BEGIN PRIVATE KEY-----/);
  });

  it("exchanges a JWT signed with the account's key for a token the model routes accept", async () => {
    const before = (await getJson(mock, "/_mock/vertex/tokens")).body.exchanges as number;
    const { status, body } = await exchange(assertion(account.private_key));
    expect(status).toBe(200);
    expect(body).toEqual({ access_token: expect.stringMatching(/^ya29\.mock-/), expires_in: 3599, token_type: "Bearer" });
    expect((await getJson(mock, "/_mock/vertex/tokens")).body.exchanges).toBe(before + 1);
    expect((await generate(`Bearer ${body.access_token}`)).status).toBe(200);
  });

  it("accepts Google's own token URL as the audience, as Google's libraries sign it", async () => {
    expect((await exchange(assertion(account.private_key, { aud: "https://oauth2.googleapis.com/token" }))).status).toBe(200);
  });

  it("refuses a JWT signed with another key, and one that lives over an hour", async () => {
    const other = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ type: "pkcs8", format: "pem" }).toString();
    expect(await exchange(assertion(other))).toEqual({ status: 400, body: fixtureJson("vertex.oauth2.token.error.invalid_grant.json") });
    const iat = Math.floor(Date.now() / 1000);
    const long = await exchange(assertion(account.private_key, { iat, exp: iat + 7200 }));
    expect(long.status).toBe(400);
    expect(long.body.error).toBe("invalid_grant");
  });

  it("issues tokens of the lifetime set, and refuses them once expired", async () => {
    await fetch(`${mock.url}/_mock/vertex/tokens`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ expires_in: 1 }),
    });
    const { body } = await exchange(assertion(account.private_key));
    expect(body.expires_in).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const res = await generate(`Bearer ${body.access_token}`);
    expect(res.status).toBe(401);
    expect(((await res.json()) as Json).error.status).toBe("UNAUTHENTICATED");
  });

  it("refuses a model call without a token (the recorded 401) or with one it never issued", async () => {
    const missing = await generate();
    expect(missing.status).toBe(401);
    expect(await missing.json()).toEqual(fixtureJson("vertex.error.401.unauthenticated.json"));
    const unknown = await generate("Bearer ya29.not-issued");
    expect(unknown.status).toBe(401);
    expect(((await unknown.json()) as Json).error).toMatchObject({ code: 401, status: "UNAUTHENTICATED" });
  });
});
