// An upstream answer through the engine's own decoders into the usage meter,
// as engine/relay-answer.ts feeds it: each item's usage object and the record
// its codec read, and what reached the client. What the meter bills is what
// these return.
import type { UsageRecord } from "../../src/billing/pricing";
import { type AnswerItem, StreamDecoder, WholeDecoder } from "../../src/engine/answer-decoders";
import { UsageMeter } from "../../src/engine/usage-meter";
import type { ResponseContext, StreamTranslator } from "../../src/providers/provider-adapter";

export const RESPONSE_CONTEXT: ResponseContext = { id: "chatcmpl-gateway", created: 1_790_000_000, model: "from-catalogue" };

function take(meter: UsageMeter, items: AnswerItem[]): void {
  for (const item of items) {
    if (item.kind === "answer") {
      meter.report(item.answer, item.usage);
      meter.deliveredAnswer(item.answer);
    } else if (item.kind === "chunk") {
      meter.report(item.chunk, item.usage);
      meter.deliveredChunk(item.chunk);
    }
  }
}

/** A streamed body (SSE text, parsed by the gateway's one parser) through a codec's translator. */
export function meterStream(translator: StreamTranslator, body: string): UsageMeter {
  const decoder = new StreamDecoder(translator, Number.POSITIVE_INFINITY);
  const meter = new UsageMeter();
  for (const group of decoder.push(Buffer.from(body))) take(meter, group.items);
  take(meter, decoder.end());
  return meter;
}

/** A whole body through a codec's reading of answers and of their usage. */
export function meterWhole(
  codec: { response(json: unknown): Record<string, unknown>; usage(json: unknown): UsageRecord | undefined },
  body: string,
): UsageMeter {
  const items = new WholeDecoder(
    (json) => codec.response(json),
    (json) => codec.usage(json),
  ).decode(body);
  if (items[0]?.kind !== "answer") throw new Error("the body is not an answer the codec reads");
  const meter = new UsageMeter();
  take(meter, items);
  return meter;
}

/** The usage billed for a body with this (ignored) forwarded request. */
export const billed = (meter: UsageMeter) => meter.tokens("{}");
