// One upstream answer through the pipeline: upstream bytes -> events (a
// decoder) -> the provider codec's translation -> the usage meter -> the
// client dialect's rendering -> the client writer. Streamed and whole answers
// take the same path; a whole answer is one event, rendered once its cost is
// known. Until something reached the client, a broken answer is a failed
// attempt like any other (retried, then the next path or model). After that
// there is no retry: a streamed answer ends with its usage and one error
// event, billed for what was delivered. A client that leaves stops the
// relaying; the upstream is read on for a short drain to catch its usage, and
// the call is billed from that usage or from what was delivered. For a client
// of the upstream's own dialect most events skip the translation and the
// rendering: they go out as the bytes that arrived (byte-event-decoder.ts; a
// whole chat answer: chat-byte-relay.ts).
import type { GatewayError } from "@gateway/proto";
import { clientClosed, streamFailed } from "../errors";
import type { GenAiMetrics } from "../gen-ai-metrics";
import type { HistogramFamily } from "../metric-families";
import type { AnswerContext } from "../dialects/client-dialect";
import type { OpenAiChunk, ResponseContext } from "../providers/provider-adapter";
import { readBytesWithin, UpstreamBodyTooLarge, utf8Text } from "../upstream/body-limit";
import type { SseEvent } from "../upstream/sse-parser";
import type { UpstreamResponse } from "../upstream/upstream-http";
import { type EventItems, StreamDecoder, WholeDecoder } from "./answer-decoders";
import { ByteEventDecoder } from "./byte-event-decoder";
import { type WholeChatBytes, wholeChatBytes } from "./chat-byte-relay";
import type { Call } from "./call";
import type { CallMoney } from "./call-money";
import type { ClientLink } from "./client-link";
import type { SseResponse } from "./sse-response";
import type { UpstreamAttempts } from "./upstream-attempts";
import { UsageMeter } from "./usage-meter";

export interface RelayContext {
  call: Call;
  client: ClientLink;
  attempts: UpstreamAttempts;
  money: CallMoney;
  /** The client's stream, for a streamed answer. */
  sse: SseResponse | undefined;
  /** An upstream stream without an event this long is cut (keep-alive comments do not count). */
  streamIdleTimeoutMs: number;
  /** The largest whole answer, or single stream event, read from the upstream. */
  maxBodyBytes: number;
  /** Same-dialect answers go out as the upstream's bytes where they can (byte-event-decoder.ts, chat-byte-relay.ts). */
  relayBytes: boolean;
  /** Streams: from sending upstream to the first event, by provider. */
  firstEvent: HistogramFamily;
  /** Streams: gen_ai_server_time_to_first_token_seconds, from the request's body being read. */
  genAi: Pick<GenAiMetrics, "firstToken">;
  /** Counts and logs an upstream event the translator could not read; `lost`: it may have held content. */
  malformedEvent(event: SseEvent | undefined, lost: boolean): void;
}

/** "retry": the answer broke before anything reached the client (nothing billed). `body` or `bytes`: a whole answer to send. */
export type RelayResult = { kind: "retry" } | { kind: "relayed"; body?: Record<string, unknown>; bytes?: Buffer };

export async function relayAnswer(context: RelayContext, response: UpstreamResponse): Promise<RelayResult> {
  const { call, client, sse, attempts } = context;
  const { target, plan } = call;
  const responseContext: ResponseContext = {
    id: `chatcmpl-${call.requestId}`,
    created: Math.floor(Date.now() / 1000),
    model: target.path.upstreamModel,
  };
  const { adapter } = target;
  const { native } = target;
  const renderer = sse
    ? plan.dialect.streamRenderer({
        request: plan.request,
        requestId: call.requestId,
        native: native !== undefined,
        upstreamModel: target.path.upstreamModel,
        maxHeldLength: context.maxBodyBytes,
      })
    : undefined;
  // Only into a renderer that takes events as bytes (a dialect whose codecs relay them).
  const eventBytes = context.relayBytes && renderer?.relayed ? native?.eventBytes?.() : undefined;
  const decoder: StreamDecoder | ByteEventDecoder | WholeDecoder = sse
    ? native
      ? eventBytes
        ? new ByteEventDecoder(native.stream(responseContext), context.maxBodyBytes, eventBytes)
        : new StreamDecoder(native.stream(responseContext), context.maxBodyBytes)
      : new StreamDecoder(adapter.stream(responseContext), context.maxBodyBytes)
    : native
      ? new WholeDecoder(
          (json) => native.response(json, responseContext),
          (json) => native.usage(json),
        )
      : new WholeDecoder(
          (json) => adapter.response(plan.request.operation, json, responseContext),
          (json) => adapter.usage(plan.request.operation, json),
        );
  const meter = new UsageMeter();
  /** A whole answer for the client: the upstream's own when the dialect is its own, else the translation. */
  let whole: Record<string, unknown> | undefined;
  /** Or the upstream's own bytes, read without parsing the answer. */
  let wholeBytes: WholeChatBytes | undefined;
  let relayedAny = false; // something reached the client: no retry from here on
  let failure: "client_closed" | "upstream_failed" | undefined;
  let finished = false; // the translation said the answer is complete ([DONE], message_stop, a whole body)
  const chunks: OpenAiChunk[] = [];

  /** Takes one upstream event's items, in order; true when reading should stop. */
  const take = ({ event, items, relay }: EventItems): boolean => {
    if (relay) {
      // An event of the client's own dialect the parse would relay as written: its bytes, as they came.
      if (client.gone) return false;
      const before = renderer!.relayed!(relay.data, relay.frame); // set: eventBytes asks for it
      if (before === undefined) return false; // held back by the renderer, as its parse would have been
      meter.deliveredBytesOf(relay.producedBytes);
      relayedAny = true;
      if (before !== "") sse!.add(before);
      sse!.addBytes(relay.frame);
      return false;
    }
    let stop = false;
    chunks.length = 0;
    for (const item of items) {
      if (item.kind === "error") {
        failure = "upstream_failed";
        return true;
      }
      if (item.kind === "done") {
        finished = true;
        continue;
      }
      if (item.kind === "malformed") {
        // Once the answer finished, nothing of it can be lost.
        const lost = item.lost && !finished;
        context.malformedEvent(event, lost);
        // Content the client would never see: the stream ends as broken, billed for what was delivered.
        if (lost) failure = "upstream_failed";
        // Else nothing of the answer was in it; it is dropped, not relayed as it came.
        return lost;
      }
      if (item.kind === "answer") {
        meter.report(item.answer, item.usage);
        meter.deliveredAnswer(item.answer);
        whole = native ? item.raw : item.answer;
        continue;
      }
      // Draining after a disconnect: the usage is what we waited for, and nothing more reaches the client.
      if (meter.report(item.chunk, item.usage) && client.gone) stop = true;
      chunks.push(item.chunk);
    }
    if (!renderer || client.gone) return stop;
    const frames = renderer.frames(event, chunks);
    if (frames === "") return false;
    for (const chunk of chunks) meter.deliveredChunk(chunk);
    relayedAny = true;
    sse!.add(frames);
    return false;
  };

  // The idle limit counts events, not bytes: undici's body timeout is reset by anything, and an
  // upstream sending only comments must still be cut.
  const idle = sse
    ? setTimeout(() => response.body.destroy(new Error("no event within the stream idle limit")), context.streamIdleTimeoutMs)
    : undefined;
  let firstEvent = false;
  let firstWritten = false;
  /** Reads a streamed answer event by event; the events of one read go out in one write (awaited only when the client is slow). */
  const readStream = async (stream: StreamDecoder | ByteEventDecoder, writer: SseResponse) => {
    const { body } = response;
    for (;;) {
      // A read already queued is taken without a promise (upstream/upstream-body.ts).
      let bytes = body.read();
      if (bytes instanceof Promise) bytes = await bytes;
      if (bytes === null) break;
      for (const group of stream.push(bytes)) {
        idle?.refresh();
        if (!firstEvent) {
          firstEvent = true;
          context.firstEvent.series(target.path.provider).observe((performance.now() - attempts.sentAt) / 1000);
          context.genAi.firstToken(call);
          attempts.firstToken();
        }
        if (take(group)) return writer.flush();
        if (!firstWritten && meter.producedAny) {
          // The first token goes out at once (with the chunks before it), not after the rest of its read.
          firstWritten = true;
          const drained = writer.flush();
          if (drained) await drained;
        }
      }
      const drained = writer.flush();
      if (drained) await drained;
    }
    take({ event: undefined, items: stream.end() });
    return writer.flush();
  };
  let tooLarge: UpstreamBodyTooLarge | undefined;
  try {
    if (decoder instanceof WholeDecoder) {
      const bytes = await readBytesWithin(response, context.maxBodyBytes);
      wholeBytes =
        context.relayBytes && native?.wholeChatBytes ? wholeChatBytes(bytes, plan.request.service !== undefined, native!.usage) : undefined;
      if (wholeBytes) {
        meter.report(wholeBytes, wholeBytes.record);
        meter.deliveredBytesOf(wholeBytes.scan.producedBytes);
        finished = true;
      } else take({ event: undefined, items: decoder.decode(utf8Text(bytes)) });
    } else await readStream(decoder, sse!);
  } catch (error) {
    failure = client.gone ? "client_closed" : "upstream_failed";
    if (error instanceof UpstreamBodyTooLarge) tooLarge = error;
  } finally {
    clearTimeout(idle);
  }
  if (client.gone || sse?.destroyed) failure = "client_closed";
  // An upstream that ended without finishing was cut, not done.
  if (!failure && !finished) failure = "upstream_failed";
  if (failure) response.body.destroy();

  if (failure === "upstream_failed" && !relayedAny) {
    if (tooLarge) attempts.tooLarge(tooLarge.limitBytes);
    else attempts.failedBeforeFirstByte(decoder.brokenOutcome);
    return { kind: "retry" };
  }
  if (failure === "upstream_failed") attempts.failedAfterFirstByte("stream_failed");
  // A complete answer says the path is healthy, whether or not its client stayed.
  else if (finished) attempts.answered();

  const tokens = meter.tokens(call.upstream.body);
  attempts.used(tokens.inputTokens + tokens.outputTokens);
  call.upstreamCostUsd = upstreamCost(meter.usage);
  const debitedNano = await context.money.settle(call, tokens);
  const answerContext: AnswerContext = {
    request: plan.request,
    requestId: call.requestId,
    usage: meter.usage,
    tokens,
    debitedNano,
    trace: plan.trace,
    upstreamModel: target.path.upstreamModel,
  };
  if (failure === "client_closed") {
    if (!sse) throw clientClosed();
    return { kind: "relayed" };
  }
  if (sse) {
    const end: GatewayError | undefined = failure === "upstream_failed" ? streamFailed() : undefined;
    sse.addLast(renderer!.finish(answerContext, end)); // written with the response's end
    return { kind: "relayed" };
  }
  const bytes = wholeBytes && plan.dialect.answerBytes?.(wholeBytes.bytes, wholeBytes.scan, answerContext);
  if (bytes) return { kind: "relayed", bytes };
  return { kind: "relayed", body: plan.dialect.answer(whole ?? JSON.parse(utf8Text(wholeBytes!.bytes)), answerContext) };
}

/** An aggregator's own charge in its usage (OpenRouter's `cost`, USD), when it reported one. */
function upstreamCost(usage: unknown): number | undefined {
  const cost = (usage as { cost?: unknown } | null | undefined)?.cost;
  return typeof cost === "number" && Number.isFinite(cost) ? cost : undefined;
}
