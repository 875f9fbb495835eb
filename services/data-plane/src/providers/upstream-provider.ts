// One configured provider: where it is, and the adapter for its protocol.
// Sending goes through the data plane's one HTTP agent.
import type { ProviderConfig } from "./provider-config";
import type { DispatchWatch, UpstreamHttp, UpstreamResponse, UpstreamSignal } from "../upstream/upstream-http";
import { AnthropicAdapter } from "./anthropic/anthropic-adapter";
import { GeminiAdapter } from "./gemini/gemini-adapter";
import type { ProviderAdapter, UpstreamCall } from "./provider-adapter";
import { OpenAiCompatibleAdapter } from "./openai-compatible/openai-compatible-adapter";

export class UpstreamProvider {
  readonly adapter: ProviderAdapter;

  constructor(
    readonly config: ProviderConfig,
    private readonly http: Pick<UpstreamHttp, "post">,
  ) {
    this.adapter = adapterFor(config);
  }

  /**
   * `watch`: told when the call reaches a connection (before that the provider has nothing). `traceHeaders`:
   * the attempt's traceparent, when traced, added to the call's own headers.
   */
  send(call: UpstreamCall, signal: UpstreamSignal, watch: DispatchWatch, traceHeaders?: Record<string, string>): Promise<UpstreamResponse> {
    const headers = traceHeaders ? { ...call.headers, ...traceHeaders } : call.headers;
    return this.http.post(`${this.config.baseUrl}${call.path}`, headers, call.body, signal, watch);
  }
}

function adapterFor(config: ProviderConfig): ProviderAdapter {
  switch (config.protocol) {
    case "anthropic":
      return new AnthropicAdapter();
    case "gemini":
      return new GeminiAdapter();
    case "openai-compatible":
      return new OpenAiCompatibleAdapter(config.extraFields, config.responsesApi);
  }
}
