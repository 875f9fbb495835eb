// The Bedrock persona's auth, as AWS does it: Signature V4 recomputed over the request
// as received (signed here with @smithy/signature-v4, the AWS SDKs' signer, the way the
// gateway's Bedrock adapter signs), Bedrock API keys, and the temporary credentials of
// the container-credentials endpoint. A refused call consumes no script.
import { Hash } from "@smithy/hash-node";
import { HttpRequest } from "@smithy/protocol-http";
import { SignatureV4 } from "@smithy/signature-v4";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type AwsCredentials as Credentials,
  bedrockSignedHeaders,
  fixtureJson,
  type Json,
  MOCK_AWS_CREDENTIALS as DEFAULT_CREDENTIALS,
  type Mock,
  startMock,
} from "./helpers";
const CLAUDE = "anthropic.claude-sonnet-4-20250514-v1:0";
const CONVERSE_BODY = { messages: [{ role: "user", content: [{ text: "Reply with exactly OK." }] }], inferenceConfig: { maxTokens: 50 } };
const INVOKE_BODY = { anthropic_version: "bedrock-2023-05-31", max_tokens: 50, messages: [{ role: "user", content: "Hello" }] };

let mock: Mock;
beforeAll(async () => {
  mock = await startMock();
});
afterAll(() => mock.close());

const modelPath = (modelId: string, operation: string) => `/bedrock/model/${encodeURIComponent(modelId)}/${operation}`;

const signedHeaders = (path: string, body: string, credentials?: Credentials, signingDate?: Date) =>
  bedrockSignedHeaders(mock, path, body, credentials, signingDate);

const send = (path: string, body: string, headers: Record<string, string>) => fetch(mock.url + path, { method: "POST", headers, body });

async function signedCall(path: string, payload: unknown, credentials?: Credentials): Promise<Response> {
  const body = JSON.stringify(payload);
  return send(path, body, await signedHeaders(path, body, credentials));
}

const SIGNATURE_MISMATCH =
  "The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details.";

describe("Signature V4", () => {
  it.each([
    ["converse", CLAUDE, CONVERSE_BODY],
    ["converse-stream", "eu.anthropic.claude-sonnet-4-6", CONVERSE_BODY],
    ["invoke", CLAUDE, INVOKE_BODY],
    ["invoke-with-response-stream", CLAUDE, INVOKE_BODY],
    ["invoke", "amazon.titan-embed-text-v2:0", { inputText: "hello" }],
    ["invoke", "cohere.embed-english-v3", { texts: ["hello"], input_type: "search_document" }],
  ])("accepts a signed %s call (%s)", async (operation, modelId, payload) => {
    const response = await signedCall(modelPath(modelId, operation), payload);
    expect(response.status).toBe(200);
    await response.arrayBuffer();
  });

  it("accepts the `:` raw in the path as well as %3A, and an ARN with its `/` as %2F", async () => {
    const raw = `/bedrock/model/${CLAUDE}/converse`;
    expect((await signedCall(raw, CONVERSE_BODY)).status).toBe(200);
    const arn = "arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/abc123";
    expect((await signedCall(modelPath(arn, "invoke"), INVOKE_BODY)).status).toBe(200);
  });

  it("refuses a body changed by one byte after signing: 403 InvalidSignatureException, no script consumed", async () => {
    mock.app.mock.addScript({ match: "tampered-marker", status: 429 });
    const path = modelPath(CLAUDE, "converse");
    const body = JSON.stringify({ ...CONVERSE_BODY, marker: "tampered-marker" });
    const tampered = body.replace("Reply", "reply");
    // Signed as the gateway signs (the body's hash in x-amz-content-sha256, signed too).
    const response = await send(path, tampered, await signedHeaders(path, body));
    expect(response.status).toBe(403);
    expect(response.headers.get("x-amzn-errortype")).toBe(
      "InvalidSignatureException:http://internal.amazon.com/coral/com.amazon.coral.service/",
    );
    expect(await response.json()).toEqual({ message: SIGNATURE_MISMATCH });

    // Signed without x-amz-content-sha256: the body's own hash goes into the signature.
    const signer = new SignatureV4({
      service: "bedrock",
      region: "eu-central-1",
      credentials: DEFAULT_CREDENTIALS,
      sha256: Hash.bind(null, "sha256"),
      applyChecksum: false,
    });
    const target = new URL(mock.url + path);
    const bare = await signer.sign(
      new HttpRequest({
        method: "POST",
        hostname: target.hostname,
        path,
        headers: { "content-type": "application/json", host: target.host },
        body,
      }),
    );
    const { host: _host, ...bareHeaders } = bare.headers;
    expect(bareHeaders).not.toHaveProperty("x-amz-content-sha256");
    expect((await send(path, tampered, bareHeaders)).status).toBe(403);
    expect(mock.app.mock.scripts()).toHaveLength(1);
    // The same request untouched is accepted, and takes the queued script then.
    expect((await send(path, body, bareHeaders)).status).toBe(429);
    expect(mock.app.mock.scripts()).toHaveLength(0);
  });

  it("refuses a signature older than 5 minutes with AWS's 'Signature expired' message", async () => {
    const path = modelPath(CLAUDE, "converse");
    const body = JSON.stringify(CONVERSE_BODY);
    const response = await send(path, body, await signedHeaders(path, body, DEFAULT_CREDENTIALS, new Date(Date.now() - 10 * 60_000)));
    expect(response.status).toBe(403);
    expect(response.headers.get("x-amzn-errortype")).toMatch(/^InvalidSignatureException:/);
    const { message } = (await response.json()) as Json;
    expect(message).toMatch(/^Signature expired: \d{8}T\d{6}Z is now earlier than \d{8}T\d{6}Z \(\d{8}T\d{6}Z - 5 min\.\)$/);
  });

  it("refuses an unknown access key with UnrecognizedClientException", async () => {
    const response = await signedCall(modelPath(CLAUDE, "converse"), CONVERSE_BODY, { accessKeyId: "AKIDUNKNOWN", secretAccessKey: "x" });
    expect(response.status).toBe(403);
    expect(response.headers.get("x-amzn-errortype")).toBe(
      "UnrecognizedClientException:http://internal.amazon.com/coral/com.amazon.coral.service/",
    );
    expect(await response.json()).toEqual(fixtureJson("bedrock.error.403.invalid_security_token.json"));
  });

  it("refuses the right key id with a wrong secret", async () => {
    const response = await signedCall(modelPath(CLAUDE, "converse"), CONVERSE_BODY, { ...DEFAULT_CREDENTIALS, secretAccessKey: "wrong" });
    expect(response.status).toBe(403);
    expect(((await response.json()) as Json).message).toBe(SIGNATURE_MISMATCH);
  });

  it("refuses a call without credentials with MissingAuthenticationTokenException", async () => {
    const response = await send(modelPath(CLAUDE, "converse"), JSON.stringify(CONVERSE_BODY), { "content-type": "application/json" });
    expect(response.status).toBe(403);
    expect(response.headers.get("x-amzn-errortype")).toMatch(/^MissingAuthenticationTokenException:/);
  });

  it("takes its key pair from MockProviderOptions.bedrock", async () => {
    const own = await startMock({ bedrock: { accessKeyId: "AKIDOTHER", secretAccessKey: "other-secret" } });
    try {
      const path = modelPath(CLAUDE, "converse");
      const body = JSON.stringify(CONVERSE_BODY);
      const signer = new SignatureV4({
        service: "bedrock",
        region: "us-west-2",
        credentials: { accessKeyId: "AKIDOTHER", secretAccessKey: "other-secret" },
        sha256: Hash.bind(null, "sha256"),
      });
      const target = new URL(own.url + path);
      const signed = await signer.sign(
        new HttpRequest({
          method: "POST",
          hostname: target.hostname,
          path,
          headers: { "content-type": "application/json", host: target.host },
          body,
        }),
      );
      const { host: _host, ...headers } = signed.headers;
      expect((await fetch(own.url + path, { method: "POST", headers, body })).status).toBe(200);
    } finally {
      await own.close();
    }
  });
});

describe("Bedrock API keys", () => {
  const bearer = (key: string) => ({ authorization: `Bearer ${key}`, "content-type": "application/json" });

  it("accepts bedrock-api-key-mock and refuses another key with the recorded 403", async () => {
    const path = modelPath(CLAUDE, "converse");
    expect((await send(path, JSON.stringify(CONVERSE_BODY), bearer("bedrock-api-key-mock"))).status).toBe(200);
    const refused = await send(path, JSON.stringify(CONVERSE_BODY), bearer("bedrock-api-key-wrong"));
    expect(refused.status).toBe(403);
    expect(await refused.text()).toBe(JSON.stringify(fixtureJson("bedrock.error.403.api_key_invalid.json")));
  });

  it("takes the key from MockProviderOptions.bedrock.apiKey", async () => {
    const own = await startMock({ bedrock: { apiKey: "ABSKoperator" } });
    try {
      const call = (key: string) =>
        fetch(`${own.url}${modelPath(CLAUDE, "converse")}`, { method: "POST", headers: bearer(key), body: JSON.stringify(CONVERSE_BODY) });
      expect((await call("ABSKoperator")).status).toBe(200);
      expect((await call("bedrock-api-key-mock")).status).toBe(403);
    } finally {
      await own.close();
    }
  });
});

describe("container credentials (GET /bedrock/credentials)", () => {
  const issuedCount = async (url = mock.url) => ((await (await fetch(`${url}/_mock/bedrock/credentials`)).json()) as Json).issued as number;

  it("issues short-lived credentials in the container endpoint's shape, accepted with their session token, and counts them", async () => {
    const before = await issuedCount();
    const response = await fetch(`${mock.url}/bedrock/credentials`);
    expect(response.status).toBe(200);
    const issued = (await response.json()) as Json;
    expect(Object.keys(issued)).toEqual(["AccessKeyId", "SecretAccessKey", "Token", "Expiration"]);
    expect(issued.AccessKeyId).toMatch(/^ASIA/);
    expect(Date.parse(issued.Expiration)).toBeGreaterThan(Date.now() + 3000_000);
    expect(await issuedCount()).toBe(before + 1);

    const temporary = { accessKeyId: issued.AccessKeyId, secretAccessKey: issued.SecretAccessKey, sessionToken: issued.Token };
    expect((await signedCall(modelPath(CLAUDE, "converse"), CONVERSE_BODY, temporary)).status).toBe(200);
    // Without (or with another) session token the key is not recognised.
    const noToken = await signedCall(modelPath(CLAUDE, "converse"), CONVERSE_BODY, { ...temporary, sessionToken: undefined });
    expect(noToken.status).toBe(403);
    expect(noToken.headers.get("x-amzn-errortype")).toMatch(/^UnrecognizedClientException:/);
  });

  it("refuses expired temporary credentials with ExpiredTokenException; the lifetime is a control", async () => {
    const own = await startMock({ bedrock: { credentialsLifetimeSeconds: 1 } });
    try {
      const issued = (await (await fetch(`${own.url}/bedrock/credentials`)).json()) as Json;
      expect(Date.parse(issued.Expiration) - Date.now()).toBeLessThanOrEqual(1000);
      await new Promise((resolve) => setTimeout(resolve, 1100));
      const path = modelPath(CLAUDE, "converse");
      const body = JSON.stringify(CONVERSE_BODY);
      const target = new URL(own.url + path);
      const signer = new SignatureV4({
        service: "bedrock",
        region: "us-east-1",
        credentials: { accessKeyId: issued.AccessKeyId, secretAccessKey: issued.SecretAccessKey, sessionToken: issued.Token },
        sha256: Hash.bind(null, "sha256"),
      });
      const signed = await signer.sign(
        new HttpRequest({
          method: "POST",
          hostname: target.hostname,
          path,
          headers: { "content-type": "application/json", host: target.host },
          body,
        }),
      );
      const { host: _host, ...headers } = signed.headers;
      const expired = await fetch(own.url + path, { method: "POST", headers, body });
      expect(expired.status).toBe(403);
      expect(expired.headers.get("x-amzn-errortype")).toMatch(/^ExpiredTokenException:/);

      const set = await fetch(`${own.url}/_mock/bedrock/credentials`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ lifetime_seconds: 900 }),
      });
      expect(await set.json()).toEqual({ ok: true, lifetime_seconds: 900 });
      const next = (await (await fetch(`${own.url}/bedrock/credentials`)).json()) as Json;
      expect(Date.parse(next.Expiration) - Date.now()).toBeGreaterThan(890_000);
      expect(await issuedCount(own.url)).toBe(2);
    } finally {
      await own.close();
    }
  });

  it("checks AWS_CONTAINER_AUTHORIZATION_TOKEN when one is configured", async () => {
    const own = await startMock({ bedrock: { credentialsAuthorizationToken: "container-token" } });
    try {
      expect((await fetch(`${own.url}/bedrock/credentials`)).status).toBe(401);
      expect((await fetch(`${own.url}/bedrock/credentials`, { headers: { authorization: "other" } })).status).toBe(401);
      expect((await fetch(`${own.url}/bedrock/credentials`, { headers: { authorization: "container-token" } })).status).toBe(200);
      expect(await issuedCount(own.url)).toBe(1);
    } finally {
      await own.close();
    }
  });
});
