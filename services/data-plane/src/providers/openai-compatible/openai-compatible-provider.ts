// One adapter for every OpenAI-compatible upstream (OpenAI, Groq, Mistral,
// DeepSeek, the mock provider...): a base URL and a key are configuration.
import type { ProviderConfig } from "../../config";
import type { UpstreamHttp, UpstreamResponse } from "../../upstream/upstream-http";
import { OPENAI_CHAT_FIELDS, OPENAI_EMBEDDINGS_FIELDS, pickFields } from "./accepted-fields";

export class OpenAiCompatibleProvider {
  constructor(
    readonly config: ProviderConfig,
    private readonly http: UpstreamHttp,
  ) {}

  /** The upstream body: accepted fields only, the upstream's model id, and usage always requested on streams. */
  chatBody(body: Record<string, unknown>, upstreamModel: string): string {
    const upstream = pickFields(body, OPENAI_CHAT_FIELDS);
    upstream.model = upstreamModel;
    if (upstream.stream === true) {
      const options = typeof body.stream_options === "object" && body.stream_options !== null ? body.stream_options : {};
      upstream.stream_options = { ...options, include_usage: true };
    } else {
      delete upstream.stream_options;
    }
    return JSON.stringify(upstream);
  }

  embeddingsBody(body: Record<string, unknown>, upstreamModel: string): string {
    const upstream = pickFields(body, OPENAI_EMBEDDINGS_FIELDS);
    upstream.model = upstreamModel;
    return JSON.stringify(upstream);
  }

  send(endpoint: "/chat/completions" | "/embeddings", payload: string, apiKey: string | undefined, signal: AbortSignal): Promise<UpstreamResponse> {
    const headers: Record<string, string> = { "content-type": "application/json", accept: "application/json, text/event-stream" };
    if (apiKey) headers.authorization = `Bearer ${apiKey}`;
    return this.http.post(`${this.config.baseUrl}${endpoint}`, headers, payload, signal);
  }
}
