// The contract of a provider protocol (an upstream codec). Requests arrive in
// the shared representation, the OpenAI chat completions / embeddings shape;
// an adapter turns them into its upstream's call, and the upstream's answers
// (whole bodies, stream events, error bodies) back into that shape. Adapters
// are pure: no I/O, no clocks, no gateway state. One adapter per protocol:
// openai-compatible/ (OpenAI, OpenRouter, Groq, Mistral, ...: configuration),
// anthropic/ (Messages API), gemini/ (Gemini API); the clouds (bedrock/,
// vertex/, azure/) wrap these or add their own (Converse), and sign or
// authorize each call in their access module (provider-access.ts).
import type { UsageRecord } from "../billing/pricing";
import type { UpstreamErrorCategory } from "../errors";
import type { SseEvent } from "../upstream/sse-parser";

export type Endpoint = "chat" | "embeddings";

/** An upstream response's headers as undici gives them (names in lower case). */
export type UpstreamHeaders = Record<string, string | string[] | undefined>;

/** What the adapter knows about the target when it builds a call. */
export interface RequestContext {
  /** The model id at the upstream (the access path's `upstream_model`). */
  upstreamModel: string;
  /** The provider's credential, when the path has one. */
  apiKey: string | undefined;
  /** The model's maximum output tokens from the catalogue (for protocols that require a max, e.g. Anthropic). */
  maxOutputTokens: number;
  /** The model's context window in tokens from the catalogue (0 = unknown). */
  contextLength?: number;
  /** Client request headers meant for an upstream that speaks the client's dialect (e.g. `anthropic-beta`); native codecs only. */
  clientHeaders?: Record<string, string>;
}

/** One upstream HTTP call: POST `<provider base URL><path>` with these headers (auth included) and body. */
export interface UpstreamCall {
  /** Path and query under the provider's base URL, e.g. "/chat/completions" or "/models/gemini-2.5-flash:streamGenerateContent?alt=sse". */
  path: string;
  headers: Record<string, string>;
  body: string;
}

/** What the adapter may put into an answer it writes itself. */
export interface ResponseContext {
  /** An id for answers whose upstream has none the OpenAI shape can use ("chatcmpl-..."). */
  id: string;
  /** Unix seconds, for `created` when the upstream gives none. */
  created: number;
  /** The upstream model id, for `model` when the upstream gives none. */
  model: string;
}

/**
 * An OpenAI `chat.completion.chunk` (or any object relayed as one). Usage, when
 * present, is in OpenAI's shape: prompt_tokens (all input, cached included),
 * completion_tokens (all output, reasoning and image tokens included),
 * total_tokens, and optional prompt_tokens_details / completion_tokens_details
 * (chat-usage.ts). Billing reads the usage record beside it, not this object.
 */
export type OpenAiChunk = Record<string, unknown>;

export type StreamItem =
  /**
   * A chunk in the shared representation (a dialect that is the upstream's own relays the upstream's event instead).
   * `usage`: on a chunk that carries usage, the upstream's own usage read into the one record (what is billed).
   */
  | { kind: "chunk"; chunk: OpenAiChunk; usage?: UsageRecord }
  /** The upstream finished the answer (OpenAI `[DONE]`, Anthropic `message_stop`, ...). */
  | { kind: "done" }
  /** The upstream reported a failure inside the stream (OpenAI `data: {"error"}`, Anthropic `event: error`, ...). */
  | { kind: "error"; category?: UpstreamErrorCategory }
  /**
   * An event that is not the JSON its protocol promises (malformed-event.ts). `lost`: it may have
   * carried part of the answer or its usage (anything but a keep-alive such as Anthropic's `ping`).
   */
  | { kind: "malformed"; lost: boolean };

/** Translates one streamed answer; a fresh one per upstream attempt. */
export interface StreamTranslator {
  /**
   * How the stream's bytes are framed: Server-Sent Events (the default), or AWS's binary event stream
   * (Bedrock), whose messages reach `push` as events named for their type (upstream/aws-event-stream.ts).
   */
  readonly framing?: "sse" | "aws-eventstream";
  /**
   * The upstream's event as its protocol's own, for an upstream that wraps them (Bedrock's `chunk`
   * messages carry Anthropic events in base64): what `push` reads and a native client is relayed.
   * Undefined when the event is not such a wrapper (it goes on as it came). Absent: every event as it came.
   */
  unwrap?(event: SseEvent): SseEvent | undefined;
  /** One upstream SSE event in (comments never reach it); zero or more items out, in order. An event it cannot parse yields a `malformed` item. */
  push(event: SseEvent): StreamItem[];
  /** The upstream body ended without a transport error: the final items (e.g. a usage chunk, `done` for protocols without an end marker). */
  end(): StreamItem[];
}

/**
 * How an upstream speaks one client dialect as its own. The client's body goes upstream as the
 * client wrote it (only the model id changes, fields outside the dialect's allowlist are dropped),
 * and the answer reaches the client as the upstream wrote it; this codec also reads that answer
 * into the shared representation, for the usage meter.
 */
export interface NativeCodec {
  /** The upstream call for a client's body; `maxTokens`, when given, caps the answer in the dialect's own field. */
  call(body: Record<string, unknown>, context: RequestContext, maxTokens?: number): UpstreamCall;
  /** A whole answer as the shared representation (usage included when reported). Throws when the body is not an answer. */
  response(json: unknown, context: ResponseContext): Record<string, unknown>;
  /** A whole answer's usage, read from the upstream's own fields into the one record; undefined when it reported none. */
  usage(json: unknown): UsageRecord | undefined;
  /** A translator of the upstream's stream into shared-representation items (the events themselves are relayed). */
  stream(context: ResponseContext): StreamTranslator;
  /** The upstream call that counts a client body's input tokens, for a dialect with such an endpoint (Anthropic's count_tokens). */
  countTokens?(body: Record<string, unknown>, context: RequestContext): UpstreamCall;
  /**
   * Which events of its SSE streams can go out as the bytes that arrived, unparsed (engine/byte-event-decoder.ts);
   * absent, every event is parsed. One per stream.
   */
  eventBytes?(): EventBytes;
  /**
   * Its whole answers are OpenAI chat completions, relayed as bytes with the cost spliced in
   * (engine/chat-byte-relay.ts). Its `usage` then reads a completion's `usage` and `service_tier` only.
   */
  readonly wholeChatBytes?: true;
}

/** What of a dialect's stream events can go out as bytes, and the produced text in each (engine/byte-event-decoder.ts). */
export interface EventBytes {
  /**
   * The UTF-8 bytes of produced text in an event (valid UTF-8) that can go out as it came, as the meter
   * counts its translation; -1 when it must be parsed and translated. `nameStart` is -1 for an event of
   * data alone.
   */
  relayable(bytes: Buffer, nameStart: number, nameEnd: number, dataStart: number, dataEnd: number): number;
}

export interface ProviderAdapter {
  /**
   * The protocol of the body it sends ("openai-compatible", "anthropic", "gemini", "bedrock-converse"): a cloud that carries
   * another's body names that one, since the hold's worst case depends on it (billing/worst-case.ts: Anthropic's tool
   * prompt, Gemini's thinking beyond its maximum).
   */
  readonly protocol: string;
  /** The codec for a client dialect this upstream speaks as its own (by the dialect's name), else undefined: the body is translated. */
  native(dialect: string): NativeCodec | undefined;
  /** Whether this upstream offers the endpoint (a path on a provider without it is never routed there). */
  supports(endpoint: Endpoint): boolean;
  /**
   * The upstream call for a body in the shared representation (`stream: true` asks for a
   * streamed answer). Fields the upstream does not accept are dropped, never
   * an error. Streams always ask for usage.
   */
  request(endpoint: Endpoint, body: Record<string, unknown>, context: RequestContext): UpstreamCall;
  /**
   * The same call (this adapter's or its native codecs') under another API key: an attempt sends the
   * key its pool chose (providers/key-pool/). Absent on adapters that take no key from the context
   * (the clouds authenticate their own way).
   */
  withKey?(call: UpstreamCall, apiKey: string): UpstreamCall;
  /**
   * A complete non-streamed upstream body (parsed JSON) as an OpenAI
   * `chat.completion` or embeddings `list`, usage included when the upstream
   * reported it. Throws when the body is not an answer it can read.
   */
  response(endpoint: Endpoint, json: unknown, context: ResponseContext): Record<string, unknown>;
  /** A whole answer's usage, read from the upstream's own fields into the one record (what is billed); undefined when it reported none. */
  usage(endpoint: Endpoint, json: unknown): UsageRecord | undefined;
  /** A translator for one streamed chat answer. */
  stream(context: ResponseContext): StreamTranslator;
  /**
   * The category of an upstream error, from its structured fields only (never its message text): the
   * body, and the response's headers for upstreams that name the error there (Bedrock's `x-amzn-errortype`).
   */
  classifyError(body: unknown, headers?: UpstreamHeaders): UpstreamErrorCategory | undefined;
}
