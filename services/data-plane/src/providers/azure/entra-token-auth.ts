// Calls authenticated by a Microsoft Entra ID token for Azure AI services,
// from @azure/identity's credential chain (DefaultAzureCredential: a service
// principal's environment, workload identity, managed identity, the Azure CLI
// on a developer's machine). The token is kept fresh off the request path by
// RefreshingCredential: concurrent requests share one fetch.
import type { AccessToken, TokenCredential } from "@azure/identity";
import { errorKind, RefreshingCredential, type RefreshingCredentialOptions } from "../cloud/refreshing-credential";
import { type CredentialLog, type UpstreamAuth, UpstreamCredentialsError } from "../cloud/upstream-auth";
import type { UpstreamCall } from "../provider-adapter";

/** The scope of Azure OpenAI (Azure AI services) tokens. */
export const COGNITIVE_SERVICES_SCOPE = "https://cognitiveservices.azure.com/.default";

/** The longest a token fetch may take (the managed-identity endpoint retries with backoff). */
const FETCH_TIMEOUT_MS = 20_000;

export class EntraTokenAuth implements UpstreamAuth {
  private readonly token: RefreshingCredential<string>;

  /** Token fetches made (tests, metrics): one per refresh, however many requests waited on it. */
  get fetches(): number {
    return this.token.fetches;
  }

  /**
   * @param newCredential makes the library's credential; made again after a refusal, since its token cache would hand the
   * refused token back.
   */
  constructor(provider: string, newCredential: () => TokenCredential, log: CredentialLog, options: RefreshingCredentialOptions = {}) {
    let credential = newCredential();
    this.token = new RefreshingCredential(async (forced) => {
      if (forced) credential = newCredential();
      let token: AccessToken | null;
      try {
        token = await credential.getToken(COGNITIVE_SERVICES_SCOPE, { abortSignal: AbortSignal.timeout(FETCH_TIMEOUT_MS) });
      } catch (error) {
        throw failed(provider, log, errorKind(error));
      }
      if (!token) throw failed(provider, log, "no_token");
      return { value: token.token, expiresAtMs: token.expiresOnTimestamp };
    }, options);
  }

  async headers(_url: string, call: UpstreamCall): Promise<Record<string, string>> {
    return { ...call.headers, authorization: `Bearer ${await this.token.get()}` };
  }

  refused(): void {
    this.token.invalidate();
  }

  close(): void {
    this.token.close();
  }
}

/**
 * Logged and thrown with the error's class name only: the library's messages can quote a token
 * endpoint's answer, and neither the log nor the error may hold anything a credential could leak into.
 * AZURE_LOG_LEVEL turns on the library's own log for the details.
 */
function failed(provider: string, log: CredentialLog, reason: string): UpstreamCredentialsError {
  const message = `${provider}: no Entra ID token for Azure OpenAI could be had (${reason})`;
  log({ provider, reason }, message);
  return new UpstreamCredentialsError(message);
}
