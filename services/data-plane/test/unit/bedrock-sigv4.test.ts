// The signer Bedrock calls use (@smithy/signature-v4) against AWS's published
// Signature V4 test suite: each case's request, signed in the suite's context
// (service `service`, us-east-1, 2015-08-30T12:36:00Z, AKIDEXAMPLE), must carry
// exactly the Authorization header of its header-signed-request.txt.
import { Hash } from "@smithy/hash-node";
import { HttpRequest } from "@smithy/protocol-http";
import { SignatureV4 } from "@smithy/signature-v4";
import { describe, expect, it } from "vitest";
import { fixtures } from "../support/fixture";

const recorded = fixtures("bedrock");

interface SuiteContext {
  credentials: { access_key_id: string; secret_access_key: string; token?: string };
  region: string;
  service: string;
  sign_body: boolean;
  timestamp: string;
}

/** `METHOD /path?query HTTP/1.1`, `Name:value` lines, a blank line, the body. */
function parseRequest(text: string): {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: Record<string, string>;
  body: string;
} {
  const [head = "", body = ""] = text.split(/\n\n/);
  const [requestLine = "", ...headerLines] = head.split("\n");
  const [method = "", target = ""] = requestLine.split(" ");
  const [path = "", search = ""] = target.split("?");
  const headers: Record<string, string> = {};
  for (const line of headerLines) {
    if (line === "") continue;
    const colon = line.indexOf(":");
    headers[line.slice(0, colon)] = line.slice(colon + 1);
  }
  const query: Record<string, string> = {};
  for (const pair of search === "" ? [] : search.split("&")) {
    const [name = "", value = ""] = pair.split("=");
    query[name] = value;
  }
  return { method, path, query, headers, body };
}

const authorizationOf = (signedRequest: string): string | undefined =>
  signedRequest
    .split("\n")
    .find((line) => line.startsWith("Authorization:"))
    ?.slice("Authorization:".length);

const CASES = [
  "get-vanilla",
  "post-vanilla",
  "get-vanilla-with-session-token",
  "post-x-www-form-urlencoded",
  "get-utf8",
  "get-vanilla-query-order-key-case",
];

describe("Signature V4 (AWS test suite)", () => {
  it.each(CASES)("%s: the library's Authorization header is the suite's", async (name) => {
    const context = recorded.json<SuiteContext>(`sigv4/${name}/context.json`);
    const request = parseRequest(recorded.text(`sigv4/${name}/request.txt`));
    const signer = new SignatureV4({
      service: context.service,
      region: context.region,
      credentials: {
        accessKeyId: context.credentials.access_key_id,
        secretAccessKey: context.credentials.secret_access_key,
        sessionToken: context.credentials.token,
      },
      sha256: Hash.bind(null, "sha256"),
      // sign_body: the body's hash also goes out as x-amz-content-sha256 (and is signed).
      applyChecksum: context.sign_body,
    });
    const signed = await signer.sign(
      new HttpRequest({
        method: request.method,
        hostname: request.headers.Host,
        path: request.path,
        query: request.query,
        headers: request.headers,
        body: request.body,
      }),
      { signingDate: new Date(context.timestamp) },
    );
    const expected = authorizationOf(recorded.text(`sigv4/${name}/header-signed-request.txt`));
    expect(expected).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\//);
    expect(signed.headers.authorization).toBe(expected);
  });
});
