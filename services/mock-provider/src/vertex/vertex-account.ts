// The mock's Google service account and OAuth2 token endpoint: a key pair made
// when the app is built (never written anywhere), the service-account JSON a
// client needs to sign in with it, and the access tokens it has issued. One
// account per mock instance, shared by the token route and the Vertex gate.
import { generateKeyPairSync, type KeyObject, randomBytes, verify } from "node:crypto";
import type { Json } from "../json";
import type { MockState } from "../state";

export const CLOUD_PLATFORM_SCOPE = "https://www.googleapis.com/auth/cloud-platform";
/** Google's token endpoint: the `aud` Google's client libraries sign whatever the key file's token_uri. */
const GOOGLE_TOKEN_URL = "https://oauth2.googleapis.com/token";
export const CLIENT_EMAIL = "gateway-mock@mock-project.iam.gserviceaccount.com";

export interface VertexAccount {
  /** The service-account key file's JSON, its token_uri on this mock (`<baseUrl>/vertex/token`). */
  serviceAccount(baseUrl: string): Json;
  /** A JWT-bearer assertion's exchange: the token answer, or Google's 400 refusal. */
  exchange(assertion: string, tokenUrl: string): { status: number; body: Json };
  /** Whether the bearer token is one this account issued and it has not expired. */
  valid(token: string | undefined): boolean;
  /** Exchanges answered with a token (tests assert one refresh). */
  exchanges: number;
  /** `expires_in` of the tokens issued from now on (default 3599; tests force refreshes). */
  expiresInSeconds: number;
}

const accounts = new WeakMap<MockState, VertexAccount>();

/** The mock instance's account, made on first use. */
export function vertexAccountOf(state: MockState): VertexAccount {
  let account = accounts.get(state);
  if (!account) {
    account = createVertexAccount();
    accounts.set(state, account);
  }
  return account;
}

const refusal = (description: string) => ({ status: 400, body: { error: "invalid_grant", error_description: description } });
const BAD_SIGNATURE = refusal("Invalid JWT Signature.");
const BAD_TIME = refusal(
  "Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. Check your iat and exp values in the JWT claim.",
);

function createVertexAccount(): VertexAccount {
  const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const keyId = randomBytes(20).toString("hex");
  const issued = new Map<string, number>();
  const account: VertexAccount = {
    exchanges: 0,
    expiresInSeconds: 3599,
    serviceAccount: (baseUrl) => ({
      type: "service_account",
      project_id: "mock-project",
      private_key_id: keyId,
      private_key: privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
      client_email: CLIENT_EMAIL,
      client_id: "100000000000000000001",
      token_uri: `${baseUrl}/vertex/token`,
    }),
    exchange(assertion, tokenUrl) {
      const claims = verifiedClaims(assertion, publicKey);
      if (!claims || claims.iss !== CLIENT_EMAIL) return BAD_SIGNATURE;
      if (claims.aud !== tokenUrl && claims.aud !== GOOGLE_TOKEN_URL) return refusal("Invalid JWT: audience.");
      const scopes = typeof claims.scope === "string" ? claims.scope.split(" ") : [];
      if (!scopes.includes(CLOUD_PLATFORM_SCOPE)) return refusal("Invalid OAuth scope or ID token audience provided.");
      const now = Date.now() / 1000;
      const { iat, exp } = claims;
      if (typeof iat !== "number" || typeof exp !== "number" || exp - iat > 3600 || exp < now || iat > now + 300) return BAD_TIME;
      account.exchanges++;
      const token = `ya29.mock-${randomBytes(24).toString("base64url")}`;
      issued.set(token, Date.now() + account.expiresInSeconds * 1000);
      return { status: 200, body: { access_token: token, expires_in: account.expiresInSeconds, token_type: "Bearer" } };
    },
    valid: (token) => token !== undefined && (issued.get(token) ?? 0) > Date.now(),
  };
  return account;
}

/** The claims of an RS256 JWT signed by `publicKey`, else undefined. */
function verifiedClaims(assertion: string, publicKey: KeyObject): Json | undefined {
  const [header, payload, signature, ...rest] = assertion.split(".");
  if (header === undefined || payload === undefined || signature === undefined || rest.length > 0) return undefined;
  try {
    const head = JSON.parse(Buffer.from(header, "base64url").toString()) as Json;
    if (head.alg !== "RS256") return undefined;
    if (!verify("RSA-SHA256", Buffer.from(`${header}.${payload}`), publicKey, Buffer.from(signature, "base64url"))) return undefined;
    return JSON.parse(Buffer.from(payload, "base64url").toString()) as Json;
  } catch {
    return undefined;
  }
}
