// The /v1 scope's caller: every answer carries x-request-id (the client's own,
// when it sent a usable one, else the gateway's) and x-gateway-request-id (the
// gateway's: the hold's and the ledger entry's id), and a request
// must present a valid key: `Authorization: Bearer <key>` (OpenAI's clients),
// or `x-api-key: <key>` (Anthropic's) when it has no Authorization header. A key
// not in the issued format is refused at once, without asking the control plane;
// a client address whose keys keep failing is refused with 429 before it asks
// (auth/failed-validations.ts). The address is the socket's, or with
// TRUSTED_PROXIES the client's as the trusted proxies forwarded it (fastify's request.ip).
import { API_KEY_PATTERN } from "@gateway/proto";
import type { TraceSpan } from "@gateway/proto/tracing";
import type { KeyIdentity } from "../../auth/key-cache";
import { GatewayError, invalidApiKey } from "../../errors";
import type { Hook } from "../../request-context";
import { globalPlugin } from "./global-plugin";
import { failWith } from "./hook-failure";

const BEARER = /^Bearer\s+(\S+)\s*$/i;
/** A client's request id is echoed and logged only when short and plain: it goes into headers and log lines. */
const CLIENT_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export interface KeyValidation {
  /**
   * The key's identity, or undefined when it is not valid: at once when known, else a promise; fails when it
   * cannot be checked, or when `client` (the caller's address) had too many keys fail. `span`: the lookup's, for its trace.
   */
  validate(key: string, span?: TraceSpan, client?: () => string): KeyIdentity | undefined | Promise<KeyIdentity | undefined>;
}

/** A callback hook: a key the cache knows is checked without a promise. */
export function authHook(keys: KeyValidation): Hook {
  return (request, reply, done) => {
    request.clientRequestId = clientRequestId(request.headers["x-request-id"]);
    reply.header("x-request-id", request.clientRequestId ?? request.id);
    reply.header("x-gateway-request-id", request.id);
    const admit = (identity: KeyIdentity | undefined) => {
      if (!identity) return done(invalidApiKey());
      request.identity = identity;
      done();
    };
    if (request.span) {
      tracedIdentity(request.span, request.headers, clientAddress(request), keys).then(admit, failWith(done));
      return;
    }
    const key = presentedKey(request.headers);
    if (!key || !API_KEY_PATTERN.test(key)) return done(invalidApiKey());
    let identity: ReturnType<KeyValidation["validate"]>;
    try {
      identity = keys.validate(key, undefined, clientAddress(request));
    } catch (error) {
      return failWith(done)(error);
    }
    if (identity instanceof Promise) identity.then(admit, failWith(done));
    else admit(identity);
  };
}

export const auth = globalPlugin<{ hook: Hook }>(async (app, { hook }) => {
  app.decorateRequest("identity", undefined);
  app.addHook("onRequest", hook);
});

type KeyHeaders = { authorization?: string; "x-api-key"?: string | string[] };

/** The same check under an `auth` span (a ValidateKey call it makes is the span's child at the control plane). */
async function tracedIdentity(parent: TraceSpan, headers: KeyHeaders, client: () => string, keys: KeyValidation): Promise<KeyIdentity> {
  const span = parent.child("auth");
  try {
    const key = presentedKey(headers);
    if (!key || !API_KEY_PATTERN.test(key)) throw invalidApiKey();
    const identity = await keys.validate(key, span, client);
    if (!identity) throw invalidApiKey();
    span.set("gateway.key_id", identity.keyId);
    return identity;
  } catch (error) {
    span.fail(error instanceof GatewayError ? error.kind : "internal_error");
    throw error;
  } finally {
    span.end();
  }
}

/** The caller's address, worked out only when a key is not cached (with TRUSTED_PROXIES, reading it parses X-Forwarded-For). */
const clientAddress = (request: { ip: string }) => () => request.ip;

function presentedKey(headers: KeyHeaders): string | undefined {
  if (headers.authorization !== undefined) return BEARER.exec(headers.authorization)?.[1];
  const key = headers["x-api-key"];
  return typeof key === "string" && /^\S+$/.test(key.trim()) ? key.trim() : undefined;
}

/**
 * The client's x-request-id if usable. It is never the gateway's own id: that one keys the hold and the
 * ledger entry, and a client reusing its id would make a second request a replay of the first.
 */
function clientRequestId(value: string | string[] | undefined): string | undefined {
  return typeof value === "string" && CLIENT_REQUEST_ID.test(value) ? value : undefined;
}
