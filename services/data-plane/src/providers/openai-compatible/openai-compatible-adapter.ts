// One adapter for every OpenAI-compatible upstream (OpenAI, OpenRouter, Groq,
// Mistral, DeepSeek, Together, xAI, Fireworks, the mock provider...): a base
// URL, a key and the extra fields it accepts are configuration. Requests keep
// the caller's accepted fields in their order; answers are already OpenAI
// shapes and are relayed as they came (stream chunks byte for byte).
import type { UsageRecord } from "../../billing/pricing";
import type { UpstreamErrorCategory } from "../../errors";
import type { SseEvent } from "../../upstream/sse-parser";
import type {
  Endpoint,
  NativeCodec,
  ProviderAdapter,
  RequestContext,
  StreamItem,
  StreamTranslator,
  UpstreamCall,
} from "../provider-adapter";
import { readChatUsage } from "../chat-usage";
import { OPENAI_CHAT_FIELDS, OPENAI_EMBEDDINGS_FIELDS, pickFields } from "./accepted-fields";
import { classifyUpstreamError } from "./classify-error";
import { responsesCodec } from "./responses-codec";
import { malformedEvent } from "../malformed-event";
import { ChatEventBytes } from "./chat-event-bytes";

export class OpenAiCompatibleAdapter implements ProviderAdapter {
  readonly protocol = "openai-compatible";
  private readonly chatFields: ReadonlySet<string>;
  /** The shared representation is this protocol's own: passing through and translating are one thing. */
  private readonly codecs: Record<string, NativeCodec>;

  /**
   * @param extraFields request fields this upstream accepts beyond OpenAI's (e.g. OpenRouter's `top_k`, `provider`).
   * @param responsesApi the upstream serves the Responses API itself: Responses clients pass through instead of being translated.
   */
  constructor(extraFields: readonly string[] = [], responsesApi = false) {
    this.chatFields = new Set([...OPENAI_CHAT_FIELDS, ...extraFields]);
    this.codecs = { "openai-chat": this.sharedCodec("chat"), "openai-embeddings": this.sharedCodec("embeddings") };
    if (responsesApi) this.codecs["openai-responses"] = responsesCodec;
  }

  native(dialect: string): NativeCodec | undefined {
    return this.codecs[dialect];
  }

  private sharedCodec(endpoint: Endpoint): NativeCodec {
    return {
      ...(endpoint === "chat" ? { eventBytes: () => new ChatEventBytes(), wholeChatBytes: true as const } : {}),
      call: (body, context, maxTokens) =>
        this.request(endpoint, maxTokens === undefined ? body : { ...body, max_tokens: maxTokens }, context),
      response: (json) => this.response(endpoint, json),
      usage: (json) => this.usage(endpoint, json),
      stream: () => this.stream(),
    };
  }

  supports(): boolean {
    return true;
  }

  request(endpoint: Endpoint, body: Record<string, unknown>, context: RequestContext): UpstreamCall {
    const headers: Record<string, string> = { "content-type": "application/json", accept: "application/json, text/event-stream" };
    if (context.apiKey) headers.authorization = `Bearer ${context.apiKey}`;
    if (endpoint === "embeddings") {
      const upstream = pickFields(body, OPENAI_EMBEDDINGS_FIELDS);
      upstream.model = context.upstreamModel;
      return { path: "/embeddings", headers, body: JSON.stringify(upstream) };
    }
    return { path: "/chat/completions", headers, body: this.chatBody(body, context.upstreamModel) };
  }

  withKey(call: UpstreamCall, apiKey: string): UpstreamCall {
    return { ...call, headers: { ...call.headers, authorization: `Bearer ${apiKey}` } };
  }

  /**
   * The upstream chat body: accepted fields only, the upstream's model id, usage always requested on
   * streams, and `store: false` whenever the client sent `store`: a tenant must not make the
   * operator's provider account keep completions (OpenAI's default is false; the field is not added
   * when absent, since not every OpenAI-compatible vendor knows it).
   */
  chatBody(body: Record<string, unknown>, upstreamModel: string): string {
    const upstream = pickFields(body, this.chatFields);
    upstream.model = upstreamModel;
    if (upstream.store !== undefined) upstream.store = false;
    if (upstream.stream === true) {
      const options = typeof body.stream_options === "object" && body.stream_options !== null ? body.stream_options : {};
      upstream.stream_options = { ...options, include_usage: true };
    } else {
      delete upstream.stream_options;
    }
    return JSON.stringify(upstream);
  }

  /** A 200 body that is an error, or has no choices (chat) / data (embeddings), is not an answer: never relayed. */
  response(endpoint: Endpoint, json: unknown): Record<string, unknown> {
    if (typeof json !== "object" || json === null || Array.isArray(json)) throw new Error("not an object");
    const body = json as Record<string, unknown>;
    if (body.error !== undefined && body.error !== null) throw new Error("an error body with status 200");
    if (!Array.isArray(endpoint === "chat" ? body.choices : body.data)) throw new Error("not an answer");
    return body;
  }

  /** Chat and embeddings usage alike: OpenAI's shape (embeddings report prompt tokens only). */
  usage(_endpoint: Endpoint, json: unknown): UsageRecord | undefined {
    return typeof json === "object" && json !== null ? readChatUsage(json) : undefined;
  }

  stream(): StreamTranslator {
    return new OpenAiStreamTranslator();
  }

  classifyError(body: unknown): UpstreamErrorCategory | undefined {
    return classifyUpstreamError(body);
  }
}

/**
 * OpenAI chunks pass through; a chunk with usage also carries it read into the
 * record (with the chunk's `service_tier`). `[DONE]` ends the answer; an error ends it as
 * failed: OpenAI's `data: {"error":...}`, OpenRouter's error chunk (top-level
 * `error`, `finish_reason: "error"`), or an `event: error` some compatible
 * servers send.
 */
class OpenAiStreamTranslator implements StreamTranslator {
  push(event: SseEvent): StreamItem[] {
    if (event.event === "error") return [{ kind: "error" }];
    if (event.data === "[DONE]") return [{ kind: "done" }];
    let chunk: unknown;
    try {
      chunk = JSON.parse(event.data);
    } catch {
      return [malformedEvent(event)]; // it carries nothing we can relay faithfully
    }
    if (typeof chunk !== "object" || chunk === null || Array.isArray(chunk)) return [malformedEvent(event)];
    const record = chunk as Record<string, unknown>;
    if (record.error !== undefined && record.error !== null) return [{ kind: "error", category: classifyUpstreamError(record) }];
    if (record.usage === undefined || record.usage === null) return [{ kind: "chunk", chunk: record }];
    return [{ kind: "chunk", chunk: record, usage: readChatUsage(record) }];
  }

  end(): StreamItem[] {
    return [];
  }
}
