// The models Bedrock serves through Converse (Amazon Nova, Llama, Mistral, ...):
// the shared OpenAI chat shape to Converse / ConverseStream and back, and the
// Titan and Cohere embedding models through InvokeModel. No client dialect is
// Converse's own: every body is translated.
import type { UsageRecord } from "../../billing/pricing";
import type { UpstreamErrorCategory } from "../../errors";
import type {
  Endpoint,
  NativeCodec,
  ProviderAdapter,
  RequestContext,
  ResponseContext,
  StreamTranslator,
  UpstreamCall,
  UpstreamHeaders,
} from "../provider-adapter";
import { embeddingsCall, embeddingsList, embeddingsUsage } from "./bedrock-embeddings";
import { isCohereEmbeddings, isTitanEmbeddings } from "./bedrock-model-id";
import { buildConverseCall } from "./build-converse-request";
import { classifyBedrockError } from "./classify-bedrock-error";
import { convertConverseResponse, readConverseAnswerUsage } from "./convert-converse-response";
import { ConverseStreamTranslator } from "./converse-stream-translator";

export class ConverseAdapter implements ProviderAdapter {
  readonly protocol = "bedrock-converse";
  private readonly embeddings: boolean;

  /** @param modelId the upstream model: an embedding model serves embeddings only, any other chat only. */
  constructor(modelId: string) {
    this.embeddings = isTitanEmbeddings(modelId) || isCohereEmbeddings(modelId);
  }

  native(_dialect: string): NativeCodec | undefined {
    return undefined;
  }

  supports(endpoint: Endpoint): boolean {
    return endpoint === "embeddings" ? this.embeddings : !this.embeddings;
  }

  request(endpoint: Endpoint, body: Record<string, unknown>, context: RequestContext): UpstreamCall {
    return endpoint === "embeddings" ? embeddingsCall(body, context) : buildConverseCall(body, context);
  }

  response(endpoint: Endpoint, json: unknown, context: ResponseContext): Record<string, unknown> {
    return endpoint === "embeddings" ? embeddingsList(json, context) : convertConverseResponse(json, context);
  }

  usage(endpoint: Endpoint, json: unknown): UsageRecord | undefined {
    return endpoint === "embeddings" ? embeddingsUsage(json) : readConverseAnswerUsage(json);
  }

  stream(context: ResponseContext): StreamTranslator {
    return new ConverseStreamTranslator(context);
  }

  classifyError(body: unknown, headers?: UpstreamHeaders): UpstreamErrorCategory | undefined {
    return classifyBedrockError(body, headers);
  }
}
