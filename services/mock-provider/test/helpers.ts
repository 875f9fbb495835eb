import { sign } from "node:crypto";
import { Hash } from "@smithy/hash-node";
import { HttpRequest } from "@smithy/protocol-http";
import { SignatureV4 } from "@smithy/signature-v4";
// Shared test plumbing: a real loopback server per test file, and fixture
// readers that parse the recordings independently of the code under test.
import { readFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { buildMockProvider } from "../src/app";
import type { MockProviderApp } from "../src/app";
import type { MockProviderOptions } from "../src/types";

export type Json = Record<string, any>;

const FIXTURES = fileURLToPath(new URL("../fixtures/", import.meta.url));

export function fixtureText(name: string): string {
  return readFileSync(FIXTURES + name, "utf8");
}

export function fixtureJson(name: string): Json {
  return JSON.parse(fixtureText(name)) as Json;
}

/** JSON events of a recorded transcript, [DONE] excluded. */
export function fixtureEvents(name: string): Json[] {
  return sseData(fixtureText(name))
    .filter((d) => d !== "[DONE]")
    .map((d) => JSON.parse(d) as Json);
}

/** The `data:` payloads of an SSE body, in order. */
export function sseData(text: string): string[] {
  return text
    .split("\n\n")
    .filter((block) => block !== "")
    .map((block) => {
      if (!block.startsWith("data: ")) throw new Error(`not a data event: ${JSON.stringify(block)}`);
      return block.slice("data: ".length);
    });
}

export interface Mock {
  app: MockProviderApp;
  url: string;
  close(): Promise<void>;
}

export async function startMock(options: MockProviderOptions = {}): Promise<Mock> {
  const app = buildMockProvider(options);
  await app.listen({ port: 0, host: "127.0.0.1" });
  const { port } = app.server.address() as AddressInfo;
  return { app, url: `http://127.0.0.1:${port}`, close: () => app.close() };
}

export const AUTH = { authorization: "Bearer sk-test", "content-type": "application/json" };

export function post(
  mock: Mock,
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
  signal?: AbortSignal,
): Promise<Response> {
  return fetch(mock.url + path, {
    method: "POST",
    headers: { ...AUTH, ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
    ...(signal ? { signal } : {}),
  });
}

export function chat(mock: Mock, body: Json, headers: Record<string, string> = {}, signal?: AbortSignal) {
  return post(mock, "/v1/chat/completions", body, headers, signal);
}

export function script(value: unknown): Record<string, string> {
  return { "x-mock-script": JSON.stringify(value) };
}

export const USER = [{ role: "user", content: "Hello!" }];

/** Reads a body chunk by chunk; returns the text read and the error that ended it, if any. */
export async function readAll(res: Response): Promise<{ text: string; error: unknown }> {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let text = "";
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return { text, error: undefined };
      text += decoder.decode(value, { stream: true });
    }
  } catch (error) {
    return { text, error };
  }
}

export async function getJson(mock: Mock, path: string): Promise<{ status: number; body: Json }> {
  const res = await fetch(mock.url + path);
  return { status: res.status, body: (await res.json()) as Json };
}

/** Headers of a well-formed Anthropic call. */
export const ANTHROPIC = { "x-api-key": "sk-ant-test", "anthropic-version": "2023-06-01", "content-type": "application/json" };

export function messages(mock: Mock, body: unknown, headers: Record<string, string> = {}, signal?: AbortSignal): Promise<Response> {
  return fetch(`${mock.url}/v1/messages`, {
    method: "POST",
    headers: { ...ANTHROPIC, ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
    ...(signal ? { signal } : {}),
  });
}

/** `event:` / `data:` pairs of an Anthropic SSE body, data kept as raw text. */
export function anthropicEvents(text: string): { event: string; data: string }[] {
  return text
    .split("\n\n")
    .filter((block) => block !== "")
    .map((block) => {
      const match = /^event: (.*)\ndata: (.*)$/.exec(block);
      if (!match) throw new Error(`not an Anthropic event: ${JSON.stringify(block)}`);
      return { event: match[1]!, data: match[2]! };
    });
}

/** A recorded transcript as the mock serves it: always ending in one blank line. */
export function servedTranscript(name: string): string {
  return fixtureText(name).replace(/\n*$/, "\n\n");
}

/** POST to a Gemini method, e.g. gemini(mock, "gemini-2.5-flash:generateContent", body). */
export function gemini(
  mock: Mock,
  target: string,
  body: unknown,
  headers: Record<string, string> = { "x-goog-api-key": "g-test" },
  signal?: AbortSignal,
): Promise<Response> {
  return fetch(`${mock.url}/v1beta/models/${target}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
    ...(signal ? { signal } : {}),
  });
}

/** The `data:` payloads of a Gemini SSE body (CRLF blank lines between events, as recorded). */
export function geminiSseData(text: string): string[] {
  return text
    .split("\r\n\r\n")
    .filter((block) => block !== "")
    .map((block) => {
      if (!block.startsWith("data: ")) throw new Error(`not a Gemini data event: ${JSON.stringify(block.slice(0, 80))}`);
      return block.slice("data: ".length);
    });
}

export const CONTENTS = [{ role: "user", parts: [{ text: "Why is the sky blue?" }] }];

/** AWS credentials as the gateway signs with them (the mock's long-term keys by default). */
export interface AwsCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}
export const MOCK_AWS_CREDENTIALS: AwsCredentials = { accessKeyId: "AKIDMOCKBEDROCK", secretAccessKey: "mock-bedrock-secret-key" };

/** Headers of a Bedrock call signed as the gateway signs it: POST, the encoded path, host, x-amz-date, content-type, the body hash. */
export async function bedrockSignedHeaders(
  mock: Mock,
  path: string,
  body: string,
  credentials: AwsCredentials = MOCK_AWS_CREDENTIALS,
  signingDate = new Date(),
): Promise<Record<string, string>> {
  const target = new URL(mock.url + path);
  const signer = new SignatureV4({ service: "bedrock", region: "us-east-1", credentials, sha256: Hash.bind(null, "sha256") });
  const signed = await signer.sign(
    new HttpRequest({
      method: "POST",
      protocol: target.protocol,
      hostname: target.hostname,
      port: Number(target.port),
      path: target.pathname,
      query: {},
      headers: { "content-type": "application/json", accept: "application/json", host: target.host },
      body,
    }),
    { signingDate },
  );
  const { host: _host, ...headers } = signed.headers;
  return headers;
}

/** An access token from the mock's Vertex token endpoint, for a JWT signed with its service account's key as Google's libraries sign it. */
export async function vertexAccessToken(mock: Mock): Promise<string> {
  const account = (await getJson(mock, "/_mock/vertex/service-account")).body;
  const iat = Math.floor(Date.now() / 1000);
  const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
  const claims = {
    iss: account.client_email,
    scope: "https://www.googleapis.com/auth/cloud-platform",
    aud: account.token_uri,
    iat,
    exp: iat + 3600,
  };
  const unsigned = `${encode({ alg: "RS256", typ: "JWT" })}.${encode(claims)}`;
  const jwt = `${unsigned}.${sign("RSA-SHA256", Buffer.from(unsigned), account.private_key).toString("base64url")}`;
  const res = await fetch(`${mock.url}/vertex/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ grant_type: "urn:ietf:params:oauth:grant-type:jwt-bearer", assertion: jwt }).toString(),
  });
  return ((await res.json()) as Json).access_token;
}
