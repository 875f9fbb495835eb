// How a cloud path proves who is calling: a header computed per call (an AWS
// Signature V4 over the request, a cached OAuth2 / Entra ID bearer token).
// Static API keys stay in the adapters' own headers; this is for credentials
// that come from a credential chain and expire.
import type { UpstreamCall } from "../provider-adapter";

export interface UpstreamAuth {
  /**
   * The headers to send: the call's own plus the credential. Never waits on a refresh while the
   * credential held is still valid; throws UpstreamCredentialsError when no valid credential can be had.
   */
  headers(url: string, call: UpstreamCall): Promise<Record<string, string>>;
  /** The upstream refused the credential (401, 403): the next call fetches a new one, if the one held is not brand new. */
  refused?(): void;
  /** Stops background refreshes (the data plane is closing). */
  close(): void;
}

/**
 * The path's credentials could not be had (the chain found none, a token endpoint refused, a refresh
 * failed after expiry). The message is for the operator's log only: the caller never sees it, and it
 * never holds a credential.
 */
export class UpstreamCredentialsError extends Error {}

/** Where a cloud credential says it could not be had (the data plane's log, at warn): never the caller. */
export type CredentialLog = (fields: { provider: string; reason: string }, message: string) => void;
