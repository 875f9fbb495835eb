// Gemini on Vertex AI: the Gemini API's translation (gemini/) with Vertex's
// paths and auth. The request bodies and the answers are the same
// GenerateContent shapes; Vertex adds fields the Gemini translator reads past
// (createTime, avgLogprobs, score, usageMetadata.trafficType and
// billablePromptUsage) and can end a thinking answer with a MAX_TOKENS
// candidate that has no `parts`. No API key travels: the bearer token is added
// per call (vertex-auth.ts). Embeddings use Vertex's own `:predict` (vertex-embeddings.ts).
import type { UsageRecord } from "../../billing/pricing";
import type { UpstreamErrorCategory } from "../../errors";
import { GeminiAdapter } from "../gemini/gemini-adapter";
import type {
  Endpoint,
  NativeCodec,
  ProviderAdapter,
  RequestContext,
  ResponseContext,
  StreamTranslator,
  UpstreamCall,
} from "../provider-adapter";
import { classifyVertexError } from "./classify-vertex-error";
import { predictBody, predictEmbeddingsList, predictUsage } from "./vertex-embeddings";
import { type VertexPlace, vertexModelPath } from "./vertex-paths";

export class VertexGeminiAdapter implements ProviderAdapter {
  // The body is Gemini's: the hold allows Gemini's thinking beyond maxOutputTokens (billing/worst-case.ts).
  readonly protocol = "gemini";
  private readonly gemini = new GeminiAdapter();

  constructor(private readonly place: VertexPlace) {}

  native(): NativeCodec | undefined {
    return undefined;
  }

  supports(endpoint: Endpoint): boolean {
    return this.gemini.supports(endpoint);
  }

  request(endpoint: Endpoint, body: Record<string, unknown>, context: RequestContext): UpstreamCall {
    const headers = { "content-type": "application/json" };
    if (endpoint === "embeddings") {
      return { path: this.path(context, "predict"), headers, body: JSON.stringify(predictBody(body)) };
    }
    // The Gemini API's call without its key; only the path differs on Vertex.
    const call = this.gemini.request("chat", body, { ...context, apiKey: undefined });
    const method = body.stream === true ? "streamGenerateContent?alt=sse" : "generateContent";
    return { path: this.path(context, method), headers, body: call.body };
  }

  response(endpoint: Endpoint, json: unknown, context: ResponseContext): Record<string, unknown> {
    return endpoint === "embeddings" ? predictEmbeddingsList(json, context) : this.gemini.response("chat", json, context);
  }

  usage(endpoint: Endpoint, json: unknown): UsageRecord | undefined {
    return endpoint === "embeddings" ? predictUsage(json) : this.gemini.usage("chat", json);
  }

  stream(context: ResponseContext): StreamTranslator {
    return this.gemini.stream(context);
  }

  classifyError(body: unknown): UpstreamErrorCategory | undefined {
    return classifyVertexError(body);
  }

  private path(context: RequestContext, method: string): string {
    return vertexModelPath(this.place, "google", context.upstreamModel, method);
  }
}
