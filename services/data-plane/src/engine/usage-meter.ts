// One usage meter for every answer, streamed or whole: what the upstream
// reported, and what reached the client (its produced text and images), read
// from the shared representation. Billing uses the reported usage, as the
// provider codec read it from the upstream's own fields into the one usage
// record (providers/chat-usage.ts; docs/money.md, "Usage record"): never
// re-read from the OpenAI usage, which has no field for some of it (Anthropic's
// 1-hour cache writes, web searches). Only when the upstream reported none is
// it estimated, from the forwarded body and the text delivered.
import { countImages, estimateTokens, estimateTokensOfBytes } from "../billing/hold-estimate";
import type { UsageRecord } from "../billing/pricing";

/** The usage billed: what the upstream reported, with the images delivered (for paths priced per image). */
export type MeteredTokens = UsageRecord & { images: number };

/** Keys of a message or delta that carry no produced content. Images are billed per image, not as text. */
const NON_CONTENT_KEYS = new Set(["role", "type", "id", "index", "images"]);

/** Every produced string in a message or delta (content, refusal, reasoning, tool and function call parts, audio transcript...). */
export function producedText(value: unknown): string {
  if (typeof value === "string") return value;
  if (Array.isArray(value)) return value.map(producedText).join("");
  if (typeof value !== "object" || value === null) return "";
  let text = "";
  for (const key of Object.keys(value)) if (!NON_CONTENT_KEYS.has(key)) text += producedText((value as Record<string, unknown>)[key]);
  return text;
}

type Choices = { message?: unknown; delta?: unknown }[];
const choicesOf = (value: { choices?: unknown }): Choices => (Array.isArray(value.choices) ? (value.choices as Choices) : []);

export class UsageMeter {
  /** The latest usage object in the shared representation (a later report replaces an earlier one): what the dialects relay. */
  usage: unknown;
  /** The record its codec read with it: what is billed. */
  private reported: UsageRecord | undefined;
  /** UTF-8 bytes of the text streamed to the client: counted, not kept (a stream has no size cap; its text held would). */
  private deliveredBytes = 0;
  private images = 0;
  /** A whole answer delivered: its text is read only when an estimate needs it. */
  private answer: { choices?: unknown } | undefined;

  /**
   * Any translated chunk or answer, with the usage record its codec read (undefined for usage it could
   * not read: then the call is estimated). True when the value carried usage.
   */
  report(value: { usage?: unknown }, record: UsageRecord | undefined): boolean {
    if (value.usage === undefined || value.usage === null) return false;
    this.usage = value.usage;
    this.reported = record;
    return true;
  }

  /** A chunk that reached the client: its deltas' text and images. */
  deliveredChunk(chunk: { choices?: unknown }): void {
    for (const choice of choicesOf(chunk)) {
      this.deliveredBytes += Buffer.byteLength(producedText(choice.delta));
      this.images += countImages(choice.delta);
    }
  }

  /** Produced text that reached the client as bytes, counted by the relay's scan (engine/byte-event-decoder.ts) as `deliveredChunk` counts it. */
  deliveredBytesOf(bytes: number): void {
    this.deliveredBytes += bytes;
  }

  /** A whole answer for the client: its messages' images now, their text if an estimate needs it. */
  deliveredAnswer(answer: { choices?: unknown }): void {
    this.answer = answer;
    for (const choice of choicesOf(answer)) this.images += countImages(choice.message);
  }

  /** Whether any produced text or image was streamed to the client (the first token went out). */
  get producedAny(): boolean {
    return this.deliveredBytes > 0 || this.images > 0;
  }

  /** The tokens to bill: as reported, else estimated from the forwarded body and what was delivered. */
  tokens(forwardedBody: string): MeteredTokens {
    if (this.reported) return { ...this.reported, images: this.images };
    let deliveredBytes = this.deliveredBytes;
    if (this.answer) for (const choice of choicesOf(this.answer)) deliveredBytes += Buffer.byteLength(producedText(choice.message));
    return { inputTokens: estimateTokens(forwardedBody), outputTokens: estimateTokensOfBytes(deliveredBytes), images: this.images };
  }
}
