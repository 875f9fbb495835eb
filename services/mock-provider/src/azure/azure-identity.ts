// The mock's stand-in for Microsoft Entra ID: the App Service managed-identity
// endpoint (what @azure/identity's ManagedIdentityCredential calls when
// IDENTITY_ENDPOINT and IDENTITY_HEADER are set), so a gateway can get Azure
// bearer tokens locally. Tokens are counted per mock instance, so a test can
// assert how many fetches a load caused.
import type { MockState } from "../state";

/** The value IDENTITY_HEADER must hold (sent back as `X-IDENTITY-HEADER`). */
export const AZURE_IDENTITY_HEADER = "azure-mock-identity-header";
/** Where IDENTITY_ENDPOINT points, under the mock's base URL. */
export const AZURE_IDENTITY_PATH = "/azure/identity/token";
/** How long an issued token lives, as App Service's do (about an hour). */
export const TOKEN_LIFETIME_SECONDS = 3600;

export interface AzureIdentity {
  /** Tokens issued since the app was built. */
  issued: number;
  /** A new token for `resource`, in App Service's answer shape. */
  issue(resource: string, nowMs?: number): { access_token: string; expires_on: string; resource: string; token_type: "Bearer" };
  /** Whether `token` was issued here and has not expired. */
  valid(token: string, nowMs?: number): boolean;
}

const identities = new WeakMap<MockState, AzureIdentity>();

/** The identity stand-in of one mock instance. */
export function azureIdentity(state: MockState): AzureIdentity {
  let identity = identities.get(state);
  if (!identity) {
    const expiries = new Map<string, number>();
    const created: AzureIdentity = {
      issued: 0,
      issue(resource, nowMs = Date.now()) {
        created.issued++;
        const token = `azure-mock-token-${created.issued}`;
        const expiresOn = Math.floor(nowMs / 1000) + TOKEN_LIFETIME_SECONDS;
        expiries.set(token, expiresOn * 1000);
        return { access_token: token, expires_on: String(expiresOn), resource, token_type: "Bearer" };
      },
      valid: (token, nowMs = Date.now()) => (expiries.get(token) ?? 0) > nowMs,
    };
    identity = created;
    identities.set(state, identity);
  }
  return identity;
}
