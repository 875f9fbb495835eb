// How Bedrock calls are authenticated: a Bedrock API key as a Bearer token, else
// Signature V4 with credentials held by RefreshingCredential (one fetch for many
// waiting calls), and an UpstreamCredentialsError when none can be had.
import { describe, expect, it, vi } from "vitest";
import { bedrockAccess } from "../../src/providers/bedrock/bedrock-access";
import type { AwsCredentials } from "../../src/providers/bedrock/bedrock-auth";
import { UpstreamCredentialsError } from "../../src/providers/cloud/upstream-auth";
import type { ProviderConfig } from "../../src/providers/provider-config";

const base: ProviderConfig = {
  name: "bedrock-eu",
  baseUrl: "http://127.0.0.1:4010/bedrock",
  protocol: "bedrock",
  extraFields: [],
  responsesApi: false,
  cloud: { region: "eu-central-1" },
};
const call = {
  path: "/model/eu.amazon.nova-lite-v1%3A0/converse",
  headers: { "content-type": "application/json", accept: "application/json" },
  body: '{"messages":[]}',
};
const url = `${base.baseUrl}${call.path}`;
const SECRET = "secret-never-logged";

describe("Bedrock auth", () => {
  it("sends a configured Bedrock API key as Bearer, with no signature", async () => {
    const access = bedrockAccess({ ...base, cloud: { region: "eu-central-1", apiKey: "bedrock-api-key-mock" } }, () => {});
    const headers = await access.auth!.headers(url, call);
    expect(headers).toEqual({ ...call.headers, authorization: "Bearer bedrock-api-key-mock" });
  });

  it("signs with SigV4 for service bedrock in the path's region, covering the path as sent, host, date and body", async () => {
    const source = async (): Promise<AwsCredentials> => ({ accessKeyId: "AKIDTEST", secretAccessKey: SECRET, sessionToken: "token-1" });
    const access = bedrockAccess(base, () => {}, source);
    const headers = await access.auth!.headers(url, call);
    expect(headers.authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIDTEST\/\d{8}\/eu-central-1\/bedrock\/aws4_request, SignedHeaders=accept;content-type;host;x-amz-content-sha256;x-amz-date;x-amz-security-token, Signature=[0-9a-f]{64}$/,
    );
    expect(headers["x-amz-security-token"]).toBe("token-1");
    expect(headers["x-amz-date"]).toMatch(/^\d{8}T\d{6}Z$/);
    expect(headers.host).toBeUndefined();
    const other = await access.auth!.headers(url, { ...call, body: '{"messages":[1]}' });
    expect(other.authorization).not.toBe(headers.authorization);
    access.auth!.close();
  });

  it("fetches once for 200 concurrent calls while the credential is being fetched", async () => {
    let fetches = 0;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const source = async (): Promise<AwsCredentials> => {
      fetches++;
      await gate;
      return { accessKeyId: "AKIDTEST", secretAccessKey: SECRET, expiration: new Date(Date.now() + 3_600_000) };
    };
    const access = bedrockAccess(base, () => {}, source);
    const pending = Array.from({ length: 200 }, () => access.auth!.headers(url, call));
    // The fetch is under way and every caller waits on it before it is let through.
    await vi.waitFor(() => expect(fetches).toBe(1));
    await new Promise((resolve) => setTimeout(resolve, 20));
    release();
    const all = await Promise.all(pending);
    expect(fetches).toBe(1);
    expect(new Set(all.map((headers) => headers.authorization?.split("Signature=")[0])).size).toBe(1);
    access.auth!.close();
  });

  it("throws UpstreamCredentialsError when the chain has none, and logs without a secret", async () => {
    const logged: unknown[] = [];
    const source = async (): Promise<AwsCredentials> => {
      throw Object.assign(new Error(`could not load ${SECRET}`), { name: "CredentialsProviderError" });
    };
    const access = bedrockAccess(base, (fields, message) => logged.push({ fields, message }), source);
    await expect(access.auth!.headers(url, call)).rejects.toBeInstanceOf(UpstreamCredentialsError);
    expect(logged).toEqual([
      { fields: { provider: "bedrock-eu", reason: "CredentialsProviderError" }, message: "no AWS credentials for the Bedrock path" },
    ]);
    expect(JSON.stringify(logged)).not.toContain(SECRET);
    access.auth!.close();
  });
});
