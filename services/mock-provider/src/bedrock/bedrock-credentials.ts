// The AWS credentials the Bedrock persona knows: one long-term key pair, and the
// temporary ones its container-credentials endpoint issues (GET /bedrock/credentials,
// what the AWS SDKs' container provider reads from AWS_CONTAINER_CREDENTIALS_FULL_URI),
// each with a session token and an expiry. One store per mock instance; it counts what
// it issued so a test can assert how many refreshes a load caused.
import { randomBytes } from "node:crypto";
import type { MockState } from "../state";

export const DEFAULT_ACCESS_KEY_ID = "AKIDMOCKBEDROCK";
export const DEFAULT_SECRET_ACCESS_KEY = "mock-bedrock-secret-key";
export const DEFAULT_API_KEY = "bedrock-api-key-mock";
export const CREDENTIALS_PATH = "/bedrock/credentials";

export interface KnownCredentials {
  secretAccessKey: string;
  /** Temporary credentials only: the token the request must carry, and when they expire. */
  sessionToken?: string;
  expiresAtMs?: number;
}

/** The container endpoint's answer (ECS / EKS Pod Identity shape). */
export interface IssuedCredentials {
  AccessKeyId: string;
  SecretAccessKey: string;
  Token: string;
  Expiration: string;
}

export interface BedrockCredentialStore {
  lookup(accessKeyId: string): KnownCredentials | undefined;
  issue(nowMs?: number): IssuedCredentials;
  /** Temporary credentials issued since the app was built. */
  issued: number;
  /** Lifetime of the credentials issued from now on. */
  lifetimeSeconds: number;
}

const stores = new WeakMap<MockState, BedrockCredentialStore>();

export function bedrockCredentials(state: MockState): BedrockCredentialStore {
  let store = stores.get(state);
  if (!store) {
    store = createStore(state);
    stores.set(state, store);
  }
  return store;
}

function createStore(state: MockState): BedrockCredentialStore {
  const options = state.bedrock ?? {};
  const longTerm = options.accessKeyId ?? DEFAULT_ACCESS_KEY_ID;
  const known = new Map<string, KnownCredentials>([[longTerm, { secretAccessKey: options.secretAccessKey ?? DEFAULT_SECRET_ACCESS_KEY }]]);
  const store: BedrockCredentialStore = {
    issued: 0,
    lifetimeSeconds: options.credentialsLifetimeSeconds ?? 3600,
    lookup: (accessKeyId) => known.get(accessKeyId),
    issue(nowMs = Date.now()) {
      store.issued++;
      // ASIA... is how temporary access key ids start.
      const accessKeyId = `ASIAMOCK${String(store.issued).padStart(12, "0")}`;
      const secretAccessKey = randomBytes(30).toString("base64");
      const sessionToken = `IQoJmock${randomBytes(48).toString("base64")}`;
      const expiresAtMs = nowMs + store.lifetimeSeconds * 1000;
      known.set(accessKeyId, { secretAccessKey, sessionToken, expiresAtMs });
      return {
        AccessKeyId: accessKeyId,
        SecretAccessKey: secretAccessKey,
        Token: sessionToken,
        Expiration: new Date(expiresAtMs).toISOString().replace(/\.\d{3}Z$/, "Z"),
      };
    },
  };
  return store;
}
