// One configured provider: where it is, the adapter for each of its models'
// protocols, and (for the clouds) how each call is authenticated. Sending
// goes through the data plane's one HTTP agent.
import type { ProviderConfig } from "./provider-config";
import type { DispatchWatch, UpstreamHttp, UpstreamResponse, UpstreamSignal } from "../upstream/upstream-http";
import { AnthropicAdapter } from "./anthropic/anthropic-adapter";
import { azureAccess } from "./azure/azure-access";
import { bedrockAccess } from "./bedrock/bedrock-access";
import type { CredentialLog } from "./cloud/upstream-auth";
import { GeminiAdapter } from "./gemini/gemini-adapter";
import type { ProviderAccess } from "./provider-access";
import type { ProviderAdapter, UpstreamCall } from "./provider-adapter";
import { OpenAiCompatibleAdapter } from "./openai-compatible/openai-compatible-adapter";
import { vertexAccess } from "./vertex/vertex-access";

export class UpstreamProvider {
  private readonly access: ProviderAccess;

  constructor(
    readonly config: ProviderConfig,
    private readonly http: Pick<UpstreamHttp, "post">,
    /** A cloud credential's failures (the operator's log). */
    log: CredentialLog = () => {},
    /** The protocol's adapters and auth; tests give their own. */
    access: ProviderAccess = accessFor(config, log),
  ) {
    this.access = access;
  }

  /** The adapter for one of this provider's upstream models. */
  adapterFor(upstreamModel: string): ProviderAdapter {
    return this.access.adapterFor(upstreamModel);
  }

  /**
   * `watch`: told when the call reaches a connection (before that the provider has nothing). `traceHeaders`:
   * the attempt's traceparent, when traced, added to the call's own headers. A cloud's credential is
   * added last (a signature covers the headers before it); UpstreamCredentialsError when there is none.
   */
  async send(
    call: UpstreamCall,
    signal: UpstreamSignal,
    watch: DispatchWatch,
    traceHeaders?: Record<string, string>,
  ): Promise<UpstreamResponse> {
    const url = `${this.config.baseUrl}${call.path}`;
    const own = traceHeaders ? { ...call.headers, ...traceHeaders } : call.headers;
    const headers = this.access.auth ? await untilAborted(this.access.auth.headers(url, { ...call, headers: own }), signal) : own;
    return this.http.post(url, headers, call.body, signal, watch);
  }

  /** The upstream answered 401 or 403: a cloud credential held is fetched anew (at most so often). */
  credentialsRefused(): void {
    this.access.auth?.refused?.();
  }

  /** Stops a cloud credential's background refresh. */
  close(): void {
    this.access.auth?.close();
  }
}

function accessFor(config: ProviderConfig, log: CredentialLog): ProviderAccess {
  switch (config.protocol) {
    case "anthropic":
      return single(new AnthropicAdapter());
    case "gemini":
      return single(new GeminiAdapter());
    case "openai-compatible":
      return single(new OpenAiCompatibleAdapter(config.extraFields, config.responsesApi));
    case "bedrock":
      return bedrockAccess(config, log);
    case "vertex":
      return vertexAccess(config, log);
    case "azure":
      return azureAccess(config, log);
  }
}

const single = (adapter: ProviderAdapter): ProviderAccess => ({ adapterFor: () => adapter });

/**
 * The credential, unless the attempt is stopped first (the client left, its deadline passed): then the
 * attempt ends as aborted, and a fetch under way goes on for the calls after it.
 */
function untilAborted<T>(work: Promise<T>, signal: UpstreamSignal): Promise<T> {
  // An AbortSignal's reason (a TimeoutError for a deadline) says why; undici's EventEmitter form has none.
  const reason = () => (signal instanceof AbortSignal ? signal.reason : new Error("the upstream attempt was aborted"));
  const aborted = signal instanceof AbortSignal ? signal.aborted : (signal as { aborted?: boolean }).aborted === true;
  if (aborted) return Promise.reject(reason());
  return new Promise<T>((resolve, reject) => {
    const abort = () => reject(reason());
    const stop = () => (signal instanceof AbortSignal ? signal.removeEventListener("abort", abort) : signal.off("abort", abort));
    if (signal instanceof AbortSignal) signal.addEventListener("abort", abort, { once: true });
    else signal.once("abort", abort);
    work.then(
      (value) => {
        stop();
        resolve(value);
      },
      (error: unknown) => {
        stop();
        reject(error);
      },
    );
  });
}
