// The contract of a client dialect (an ingress codec): what a client's body
// becomes for routing, limits and billing, and how answers, stream events,
// usage with cost and errors are written back in that dialect. Translation
// between dialects goes through one shared representation, the OpenAI chat
// completions (or embeddings) shape that every provider codec reads and
// writes (docs/decisions/0001-client-dialects-and-the-shared-representation.md).
import type { ErrorBody, GatewayError } from "@gateway/proto";
import type { UsageRecord } from "../billing/pricing";
import type { OpenAiChunk } from "../providers/provider-adapter";
import type { SseEvent } from "../upstream/sse-parser";
import type { ServiceBlock } from "../routing/service-block";
import type { ChatScan } from "./openai/chat-json-scan";

export type Operation = "chat" | "embeddings";

/** A client's request as the engine needs it. */
export interface ClientRequest {
  operation: Operation;
  /** The request in the shared representation: routing, limits, holds and translating provider codecs read it. */
  body: Record<string, unknown>;
  /** The request as the client wrote it, for a provider that speaks the client's dialect natively. */
  original: Record<string, unknown>;
  stream: boolean;
  service: ServiceBlock | undefined;
  /** Request headers a native upstream should also get (e.g. `anthropic-beta`), by lower-case name. */
  forwardHeaders?: Record<string, string>;
  /**
   * Set when the request uses what only an upstream speaking the client's dialect can honour (e.g. an
   * Anthropic server tool): translated targets are left out, and with none left this is the answer.
   */
  nativeOnly?: GatewayError;
}

/** What a dialect may need to start a streamed answer. */
export interface RenderContext {
  request: ClientRequest;
  /** The gateway's id for the request (a UUID), for ids an answer needs and the upstream gave none. */
  requestId: string;
  /** The items' events are in this dialect (the upstream's own) and may be relayed as written. */
  native: boolean;
  /** The upstream model id, for answers that name none. */
  upstreamModel: string;
  /** The most a renderer may hold of an answer until it can write it (held-budget.ts); unbounded when unset. */
  maxHeldLength?: number;
}

/** What a dialect may need to write an answer. */
export interface AnswerContext {
  request: ClientRequest;
  /** The gateway's id for the request (a UUID). */
  requestId: string;
  /** The upstream's usage object (shared representation), when it reported one: what a pass-through relays. */
  usage: unknown;
  /** The usage billed (reported, read into the one record, else estimated): what a dialect renders its own usage from. */
  tokens: UsageRecord;
  /** What the ledger debited. */
  debitedNano: bigint;
  /** The routing trace, for a request that asked for it with a `service` block. */
  trace: unknown;
  /** The answering model's id at the upstream, for answers that name none. */
  upstreamModel: string;
}

/** Writes one streamed answer in the client's dialect, event by event, as complete SSE frames. */
export interface StreamRenderer {
  /**
   * One upstream event (never an error event) and the chunks translated from it: the frames for the
   * client, "" when it has none (held back, or nothing to say). A native renderer relays `event`;
   * a translating one renders `chunks`. `event` is undefined for the chunks the end of the body gave.
   */
  frames(event: SseEvent | undefined, chunks: readonly OpenAiChunk[]): string;
  /**
   * An event the relay writes as the bytes that arrived, unparsed (engine/byte-event-decoder.ts), for the
   * dialects whose codecs relay bytes: the frames to write before it ("" for none), or undefined when the
   * renderer holds it back (it writes it later, as `frames` would have).
   */
  relayed?(data: Buffer, frame: Buffer): string | undefined;
  /** The final frames: usage with cost, then the end marker, or after a failure the failure event. */
  finish(context: AnswerContext, failure: GatewayError | undefined): string;
}

export interface ClientDialect {
  readonly name: string;
  readonly operation: Operation;
  /** Answers carry X-Service-Model and X-Service-Reason. */
  readonly routingHeaders: boolean;
  /** Reads and checks a client's body (and headers, lower-case names); throws a 400 GatewayError. */
  parse(body: unknown, headers?: Readonly<Record<string, string | string[] | undefined>>): ClientRequest;
  /** A whole answer as the client's body: given as the upstream wrote it when this dialect is the upstream's own, else in the shared representation. */
  answer(answer: Record<string, unknown>, context: AnswerContext): Record<string, unknown>;
  /**
   * The same for an answer of this dialect kept as the upstream's bytes, at the places a scan found
   * (engine/chat-byte-relay.ts); for the dialects whose answers can be relayed so.
   */
  answerBytes?(bytes: Buffer, scan: ChatScan, context: AnswerContext): Buffer | undefined;
  /** A renderer for one streamed answer. */
  streamRenderer(context: RenderContext): StreamRenderer;
  /** An error as this dialect's JSON body. */
  errorBody(error: GatewayError): ErrorBody | Record<string, unknown>;
  /** An error as this dialect's SSE frame (a stream whose headers went out already). */
  errorFrame(error: GatewayError): string;
}
