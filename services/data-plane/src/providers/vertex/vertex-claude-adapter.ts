// Claude on Vertex AI: the Anthropic Messages translation (anthropic/) carried
// by `:rawPredict` / `:streamRawPredict`. The body is the Messages request
// without `model` (the path names it) and with `anthropic_version:
// "vertex-2023-10-16"`; `stream: true` stays in it. The answers, streams and
// error bodies are Anthropic's own (ids `msg_vrtx_…`), read by the Anthropic
// codecs unchanged. A Messages client passes through natively, as to Anthropic.
import type { UsageRecord } from "../../billing/pricing";
import type { UpstreamErrorCategory } from "../../errors";
import { AnthropicAdapter } from "../anthropic/anthropic-adapter";
import {
  allowed,
  anthropicMessagesCodec,
  COUNT_TOKENS_FIELDS,
  forwardedClientHeaders,
  messagesRequest,
} from "../anthropic/anthropic-messages-codec";
import { anthropicChatRequest } from "../anthropic/build-anthropic-request";
import type { JsonObject } from "../anthropic/json-values";
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
import { type VertexPlace, vertexModelPath } from "./vertex-paths";

/** The Messages API version Vertex takes, in the body instead of the `anthropic-version` header. */
export const VERTEX_ANTHROPIC_VERSION = "vertex-2023-10-16";

export class VertexClaudeAdapter implements ProviderAdapter {
  // The body is Anthropic's: the hold's worst case reads it as Anthropic's (billing/worst-case.ts).
  readonly protocol = "anthropic";
  private readonly anthropic = new AnthropicAdapter();
  private readonly messagesCodec: NativeCodec;

  constructor(private readonly place: VertexPlace) {
    this.messagesCodec = {
      call: (body, context, maxTokens) => this.predictCall(messagesRequest(body, context, maxTokens), context, nativeHeaders(context)),
      response: anthropicMessagesCodec.response,
      usage: anthropicMessagesCodec.usage,
      stream: anthropicMessagesCodec.stream,
      // Claude on Vertex streams Anthropic's own SSE.
      eventBytes: anthropicMessagesCodec.eventBytes,
      countTokens: (body, context) => this.countTokensCall(body, context),
    };
  }

  native(dialect: string): NativeCodec | undefined {
    return dialect === "anthropic-messages" ? this.messagesCodec : undefined;
  }

  supports(endpoint: Endpoint): boolean {
    return this.anthropic.supports(endpoint);
  }

  request(endpoint: Endpoint, body: Record<string, unknown>, context: RequestContext): UpstreamCall {
    if (endpoint !== "chat") throw new Error('Claude on Vertex has no embeddings endpoint (supports("embeddings") is false)');
    return this.predictCall(anthropicChatRequest(body, context), context, { "content-type": "application/json" });
  }

  response(endpoint: Endpoint, json: unknown, context: ResponseContext): Record<string, unknown> {
    return this.anthropic.response(endpoint, json, context);
  }

  usage(endpoint: Endpoint, json: unknown): UsageRecord | undefined {
    return this.anthropic.usage(endpoint, json);
  }

  stream(context: ResponseContext): StreamTranslator {
    return this.anthropic.stream(context);
  }

  classifyError(body: unknown): UpstreamErrorCategory | undefined {
    return classifyVertexError(body);
  }

  /** `:rawPredict`, or `:streamRawPredict` for a streamed body; `model` out of the body, the version in. */
  private predictCall(request: JsonObject, context: RequestContext, headers: Record<string, string>): UpstreamCall {
    const { model: _model, ...rest } = request;
    const method = rest.stream === true ? "streamRawPredict" : "rawPredict";
    return {
      path: vertexModelPath(this.place, "anthropic", context.upstreamModel, method),
      headers,
      body: JSON.stringify({ anthropic_version: VERTEX_ANTHROPIC_VERSION, ...rest }),
    };
  }

  /** Vertex counts Claude tokens at the `count-tokens` model; this body keeps `model`. */
  private countTokensCall(body: JsonObject, context: RequestContext): UpstreamCall {
    return {
      path: vertexModelPath(this.place, "anthropic", "count-tokens", "rawPredict"),
      headers: nativeHeaders(context),
      body: JSON.stringify({ anthropic_version: VERTEX_ANTHROPIC_VERSION, ...allowed(body, COUNT_TOKENS_FIELDS, context) }),
    };
  }
}

/** The beta features a client opted into, which Vertex takes as Anthropic does. */
function nativeHeaders(context: RequestContext): Record<string, string> {
  return { "content-type": "application/json", ...forwardedClientHeaders(context) };
}
