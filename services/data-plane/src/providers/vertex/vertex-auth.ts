// The bearer token on every Vertex AI call: an OAuth2 access token held by a
// RefreshingCredential, so it is fetched once, refreshed in the background
// before it expires, and shared by every request in between (a refresh under
// load is one exchange). Failures go to the operator's log, never a token.
import { RefreshingCredential, type RefreshingCredentialOptions } from "../cloud/refreshing-credential";
import { type CredentialLog, UpstreamCredentialsError, type UpstreamAuth } from "../cloud/upstream-auth";
import type { UpstreamCall } from "../provider-adapter";
import { googleAccessToken } from "./google-access-token";

export interface VertexAuthOptions extends RefreshingCredentialOptions {
  /** The provider's name, for the log. */
  provider: string;
  credentialsFile?: string;
  log: CredentialLog;
}

const DEFAULT_MARGIN_MS = 5 * 60_000;

export class VertexAuth implements UpstreamAuth {
  readonly credential: RefreshingCredential<string>;

  constructor(options: VertexAuthOptions) {
    const marginMs = options.marginMs ?? DEFAULT_MARGIN_MS;
    const fetchToken = googleAccessToken({ credentialsFile: options.credentialsFile, refreshMarginMs: marginMs, now: options.now });
    this.credential = new RefreshingCredential(
      async (forced) => {
        try {
          return await fetchToken(forced);
        } catch (error) {
          const message = error instanceof UpstreamCredentialsError ? error.message : "the Google credentials failed";
          options.log({ provider: options.provider, reason: "vertex_token_unavailable" }, message);
          throw error instanceof UpstreamCredentialsError ? error : new UpstreamCredentialsError(message);
        }
      },
      { ...options, marginMs },
    );
  }

  async headers(_url: string, call: UpstreamCall): Promise<Record<string, string>> {
    return { ...call.headers, authorization: `Bearer ${await this.credential.get()}` };
  }

  refused(): void {
    this.credential.invalidate();
  }

  close(): void {
    this.credential.close();
  }
}
