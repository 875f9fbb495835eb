// The Google Gemini API (generativelanguage v1beta) behind the OpenAI
// interface: chat through generateContent / streamGenerateContent?alt=sse,
// embeddings through batchEmbedContents. Paths are relative to a base URL such
// as https://generativelanguage.googleapis.com/v1beta. Each concern lives in
// its own file: chat-request (with convert-messages, convert-tools,
// generation-config, media), chat-response, stream-translator, embeddings,
// classify-error; candidate-output, finish-reason and usage are shared by the
// whole-answer and streamed translations so the two agree.
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
} from "../provider-adapter";
import { chatCall } from "./chat-request";
import { chatCompletion } from "./chat-response";
import { classifyGeminiError } from "./classify-error";
import { embeddingsCall, embeddingsList } from "./embeddings";
import { GeminiStreamTranslator } from "./stream-translator";
import { readGeminiUsage } from "./usage";
import { isObject } from "./wire-types";

export class GeminiAdapter implements ProviderAdapter {
  readonly protocol = "gemini";
  /** No client dialect is this protocol's own yet: every body is translated from the shared representation. */
  native(): NativeCodec | undefined {
    return undefined;
  }

  supports(endpoint: Endpoint): boolean {
    return endpoint === "chat" || endpoint === "embeddings";
  }

  request(endpoint: Endpoint, body: Record<string, unknown>, context: RequestContext): UpstreamCall {
    return endpoint === "embeddings" ? embeddingsCall(body, context) : chatCall(body, context);
  }

  withKey(call: UpstreamCall, apiKey: string): UpstreamCall {
    return { ...call, headers: { ...call.headers, "x-goog-api-key": apiKey } };
  }

  response(endpoint: Endpoint, json: unknown, context: ResponseContext): Record<string, unknown> {
    return endpoint === "embeddings" ? embeddingsList(json, context) : chatCompletion(json, context);
  }

  /** Chat answers' `usageMetadata`; embeddings report none (the proxy estimates them). */
  usage(endpoint: Endpoint, json: unknown): UsageRecord | undefined {
    return endpoint === "chat" && isObject(json) ? readGeminiUsage(json.usageMetadata) : undefined;
  }

  stream(context: ResponseContext): StreamTranslator {
    return new GeminiStreamTranslator(context);
  }

  classifyError(body: unknown): UpstreamErrorCategory | undefined {
    return classifyGeminiError(body);
  }
}
