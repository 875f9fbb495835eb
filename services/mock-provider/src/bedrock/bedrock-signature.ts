// Checking an AWS Signature V4 the way the service does: the signature is
// recomputed with @smithy/signature-v4 (the AWS SDKs' own signer) over the request as
// received: method, the path exactly as on the wire (the signer escapes it once more,
// as the client's did), the query, only the headers named in SignedHeaders, and the raw
// body. The refusals are AWS's own (status, x-amzn-ErrorType, body).
import { createHash, timingSafeEqual } from "node:crypto";
import { Hash } from "@smithy/hash-node";
import { HttpRequest } from "@smithy/protocol-http";
import { SignatureV4 } from "@smithy/signature-v4";
import type { Json } from "../json";
import type { BedrockCredentialStore } from "./bedrock-credentials";
import { CORAL_SERVICE, errorType } from "./bedrock-wire";

/** A refused call: status, body and the full x-amzn-ErrorType value. */
export interface Refusal {
  status: number;
  body: Json;
  errorType: string;
}

export const SIGNING_NAME = "bedrock";
const MAX_SKEW_MS = 5 * 60 * 1000;
const AUTHORIZATION = /^AWS4-HMAC-SHA256 Credential=([^,\s]+),\s*SignedHeaders=([^,\s]+),\s*Signature=([0-9a-f]{64})$/;
const AMZ_DATE = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/;

const refuse = (status: number, name: string, message: string): Refusal => ({
  status,
  body: { message },
  errorType: errorType(name, CORAL_SERVICE),
});

export const INVALID_TOKEN = refuse(403, "UnrecognizedClientException", "The security token included in the request is invalid.");
const EXPIRED_TOKEN = refuse(403, "ExpiredTokenException", "The security token included in the request is expired");
const MISMATCH = refuse(
  403,
  "InvalidSignatureException",
  "The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details.",
);

/** The request as the signature covers it. */
export interface SignedRequest {
  method: string;
  /** Path and query exactly as received. */
  url: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

const amzDate = (ms: number) =>
  new Date(ms)
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d{3}/, "");

function parseAmzDate(value: string | undefined): number | undefined {
  const match = AMZ_DATE.exec(value ?? "");
  if (!match) return undefined;
  const [, year, month, day, hour, minute, second] = match.map(Number) as [number, number, number, number, number, number, number];
  return Date.UTC(year, month - 1, day, hour, minute, second);
}

const single = (value: string | string[] | undefined) => (Array.isArray(value) ? value.join(",") : value);

/** Undefined when the signature is good; else AWS's refusal. */
export async function verifySignature(
  request: SignedRequest,
  store: BedrockCredentialStore,
  nowMs = Date.now(),
): Promise<Refusal | undefined> {
  const header = (name: string) => single(request.headers[name]);
  const parsed = AUTHORIZATION.exec(header("authorization") ?? "");
  if (!parsed) {
    return refuse(
      400,
      "IncompleteSignatureException",
      "Authorization header requires 'Credential', 'SignedHeaders' and 'Signature' parameters.",
    );
  }
  const [, credential, signedList, signature] = parsed as unknown as [string, string, string, string];
  const [accessKeyId = "", scopeDate, region, service, terminator] = credential.split("/");
  const known = store.lookup(accessKeyId);
  if (!known) return INVALID_TOKEN;
  if (known.sessionToken !== undefined) {
    if (header("x-amz-security-token") !== known.sessionToken) return INVALID_TOKEN;
    if ((known.expiresAtMs ?? 0) <= nowMs) return EXPIRED_TOKEN;
  }

  const date = header("x-amz-date");
  const signedAt = parseAmzDate(date);
  if (signedAt === undefined || date === undefined) return MISMATCH;
  if (signedAt < nowMs - MAX_SKEW_MS) {
    return refuse(
      403,
      "InvalidSignatureException",
      `Signature expired: ${date} is now earlier than ${amzDate(nowMs - MAX_SKEW_MS)} (${amzDate(nowMs)} - 5 min.)`,
    );
  }
  if (signedAt > nowMs + MAX_SKEW_MS) {
    return refuse(
      403,
      "InvalidSignatureException",
      `Signature not yet current: ${date} is still later than ${amzDate(nowMs + MAX_SKEW_MS)} (${amzDate(nowMs)} + 5 min.)`,
    );
  }
  if (service !== SIGNING_NAME)
    return refuse(403, "InvalidSignatureException", `Credential should be scoped to correct service: '${SIGNING_NAME}'. `);
  if (scopeDate !== date.slice(0, 8) || region === undefined || region === "" || terminator !== "aws4_request") return MISMATCH;

  const signedNames = signedList.split(";");
  if (!signedNames.includes("host"))
    return refuse(403, "InvalidSignatureException", "'Host' or ':authority' must be a 'SignedHeader' in the AWS Authorization.");
  const headers: Record<string, string> = {};
  for (const name of signedNames) {
    const value = header(name);
    if (value === undefined) return MISMATCH;
    headers[name] = value;
  }
  // A signed body hash must be the body's: the signer trusts the header.
  const declaredHash = headers["x-amz-content-sha256"];
  if (
    declaredHash !== undefined &&
    declaredHash !== "UNSIGNED-PAYLOAD" &&
    declaredHash !== createHash("sha256").update(request.body).digest("hex")
  ) {
    return MISMATCH;
  }

  const queryAt = request.url.indexOf("?");
  const path = queryAt === -1 ? request.url : request.url.slice(0, queryAt);
  const query: Record<string, string | string[]> = {};
  for (const [name, value] of new URLSearchParams(queryAt === -1 ? "" : request.url.slice(queryAt + 1))) {
    const held = query[name];
    query[name] = held === undefined ? value : Array.isArray(held) ? [...held, value] : [held, value];
  }
  const signer = new SignatureV4({
    service: SIGNING_NAME,
    region,
    // The session token is checked above and signed (or not) as the client chose, like any header.
    credentials: { accessKeyId, secretAccessKey: known.secretAccessKey },
    sha256: Hash.bind(null, "sha256"),
    // Adds no x-amz-content-sha256 the client did not send.
    applyChecksum: false,
  });
  const signed = await signer.sign(new HttpRequest({ method: request.method, path, query, headers, body: request.body }), {
    signingDate: new Date(signedAt),
    signingRegion: region,
    signingService: service,
    // Exactly the client's list, headers the signer would skip (user-agent, ...) included.
    signableHeaders: new Set(signedNames),
  });
  const expected = /Signature=([0-9a-f]{64})$/.exec(String(signed.headers.authorization))?.[1] ?? "";
  const sameList = /SignedHeaders=([^,\s]+)/.exec(String(signed.headers.authorization))?.[1] === signedList;
  return sameList && timingSafeEqual(Buffer.from(expected), Buffer.from(signature)) ? undefined : MISMATCH;
}
