// Vertex AI's bearer token through google-auth-library, against a token
// endpoint inside the test: a service-account key generated now (never a key in
// the repository) whose token_uri points at it. The library signs and exchanges
// the JWT; the gateway holds the token, refreshes it before expiry and shares one exchange.
import { generateKeyPairSync, type KeyObject, verify } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { UpstreamCredentialsError } from "../../src/providers/cloud/upstream-auth";
import { VertexAuth } from "../../src/providers/vertex/vertex-auth";

const call = {
  path: "/projects/p/locations/global/publishers/google/models/m:generateContent",
  headers: { "content-type": "application/json" },
  body: "{}",
};

/** A token endpoint that checks the JWT's RS256 signature with `publicKey` and counts the exchanges. */
class TokenEndpoint {
  exchanges = 0;
  expiresIn = 3599;
  claims: Record<string, unknown>[] = [];
  private server: Server | undefined;
  constructor(private readonly publicKey: KeyObject) {}

  async start(): Promise<string> {
    this.server = createServer((request, response) => {
      let body = "";
      request.on("data", (chunk) => (body += chunk));
      request.on("end", () => {
        this.exchanges++;
        const form = new URLSearchParams(body);
        const [header, payload, signature] = (form.get("assertion") ?? "").split(".");
        const signed = verify("RSA-SHA256", Buffer.from(`${header}.${payload}`), this.publicKey, Buffer.from(signature ?? "", "base64url"));
        response.setHeader("content-type", "application/json");
        if (form.get("grant_type") !== "urn:ietf:params:oauth:grant-type:jwt-bearer" || !signed) {
          response.statusCode = 400;
          response.end(JSON.stringify({ error: "invalid_grant", error_description: "Invalid JWT Signature." }));
          return;
        }
        this.claims.push(JSON.parse(Buffer.from(payload!, "base64url").toString()) as Record<string, unknown>);
        response.end(JSON.stringify({ access_token: `ya29.test-${this.exchanges}`, expires_in: this.expiresIn, token_type: "Bearer" }));
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, "127.0.0.1", resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/token`;
  }

  stop(): Promise<void> {
    return new Promise((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }
}

const dir = mkdtempSync(path.join(tmpdir(), "vertex-auth-"));
const accountKey = generateKeyPairSync("rsa", { modulusLength: 2048 });
const privateKeyPem = accountKey.privateKey.export({ type: "pkcs8", format: "pem" }).toString();
const endpoint = new TokenEndpoint(accountKey.publicKey);
let keyFile = "";
let tokenUri = "";
const auths: VertexAuth[] = [];
const logged: string[] = [];

function auth(file = keyFile): VertexAuth {
  const created = new VertexAuth({
    provider: "vertex",
    credentialsFile: file,
    log: (fields, message) => logged.push(`${fields.reason} ${message}`),
  });
  auths.push(created);
  return created;
}

function writeKeyFile(name: string, privateKey: string, tokenUri: string): string {
  const file = path.join(dir, name);
  const account = {
    type: "service_account",
    project_id: "test-project",
    private_key_id: "test-key-1",
    private_key: privateKey,
    client_email: "gateway@test-project.iam.gserviceaccount.com",
    token_uri: tokenUri,
  };
  writeFileSync(file, JSON.stringify(account));
  return file;
}

beforeAll(async () => {
  tokenUri = await endpoint.start();
  keyFile = writeKeyFile("account.json", privateKeyPem, tokenUri);
});
afterEach(() => {
  for (const created of auths.splice(0)) created.close();
  endpoint.exchanges = 0;
  endpoint.expiresIn = 3599;
  logged.length = 0;
});
afterAll(async () => {
  await endpoint.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe("vertex auth", () => {
  it("exchanges the service account's JWT and sends the token as a bearer", async () => {
    const headers = await auth().headers("http://vertex.test/v1/x", call);
    expect(headers).toEqual({ "content-type": "application/json", authorization: "Bearer ya29.test-1" });
    expect(endpoint.claims.at(-1)).toMatchObject({
      iss: "gateway@test-project.iam.gserviceaccount.com",
      scope: "https://www.googleapis.com/auth/cloud-platform",
    });
  });

  it("makes one exchange for 200 concurrent calls, then serves the token held", async () => {
    const vertex = auth();
    const all = await Promise.all(Array.from({ length: 200 }, () => vertex.headers("http://vertex.test/v1/x", call)));
    expect(new Set(all.map((headers) => headers.authorization))).toEqual(new Set(["Bearer ya29.test-1"]));
    await vertex.headers("http://vertex.test/v1/x", call);
    expect(endpoint.exchanges).toBe(1);
    expect(vertex.credential.fetches).toBe(1);
  });

  it("after the upstream refused the token, exchanges a new one rather than the library's cached one", async () => {
    const created = new VertexAuth({ provider: "vertex", credentialsFile: keyFile, log: () => {}, minAgeMs: 0 });
    auths.push(created);
    expect((await created.headers("http://vertex.test/v1/x", call)).authorization).toBe("Bearer ya29.test-1");
    created.refused();
    expect((await created.headers("http://vertex.test/v1/x", call)).authorization).toBe("Bearer ya29.test-2");
    expect(endpoint.exchanges).toBe(2);
  });

  it("refreshes an expiring token in the background, before it expires", async () => {
    endpoint.expiresIn = 2; // refreshed at half its life (1 s): it lives less than the margin
    const vertex = auth();
    expect((await vertex.headers("http://vertex.test/v1/x", call)).authorization).toBe("Bearer ya29.test-1");
    await expect.poll(() => endpoint.exchanges, { timeout: 1_900, interval: 50 }).toBe(2);
    expect((await vertex.headers("http://vertex.test/v1/x", call)).authorization).toBe("Bearer ya29.test-2");
    expect(endpoint.exchanges).toBe(2);
  });

  it("throws UpstreamCredentialsError, with neither token nor key, when the exchange is refused", async () => {
    const wrongKey = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ type: "pkcs8", format: "pem" }).toString();
    const file = writeKeyFile("wrong-key.json", wrongKey, tokenUri);
    const error = await auth(file)
      .headers("http://vertex.test/v1/x", call)
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(UpstreamCredentialsError);
    const message = (error as Error).message;
    expect(message).toContain("invalid_grant");
    for (const text of [message, ...logged]) {
      expect(text).not.toContain("PRIVATE KEY");
      expect(text).not.toContain(wrongKey.split("\n")[1]);
      expect(text).not.toMatch(/ya29\.|eyJ/);
    }
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatch(/^vertex_token_unavailable /);
  });

  it("throws UpstreamCredentialsError for a missing key file, or a file that is no service-account key", async () => {
    const notAKey = path.join(dir, "user.json");
    writeFileSync(notAKey, JSON.stringify({ type: "authorized_user", refresh_token: "secret-refresh" }));
    for (const file of [path.join(dir, "absent.json"), notAKey]) {
      const error = await auth(file)
        .headers("http://vertex.test/v1/x", call)
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(UpstreamCredentialsError);
      expect((error as Error).message).not.toContain("secret-refresh");
    }
    expect(endpoint.exchanges).toBe(0);
  });
});
