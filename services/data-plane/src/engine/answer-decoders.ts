// Upstream bytes -> translated items, one decoder per answer form. A streamed
// answer is parsed into events (Server-Sent Events, or AWS's event stream for
// Bedrock: the translator says which) and translated event by event; a
// whole answer is read to its end and translated once (one event).
import type { UsageRecord } from "../billing/pricing";
import type { StreamItem, StreamTranslator } from "../providers/provider-adapter";
import { AwsEventStreamParser } from "../upstream/aws-event-stream";
import { type SseEvent, SseParser } from "../upstream/sse-parser";

/**
 * A whole answer: translated into the shared representation, as the upstream wrote it (for a dialect
 * that is its own), and its usage read into the one record (what is billed).
 */
export type AnswerItem =
  | StreamItem
  | { kind: "answer"; answer: Record<string, unknown>; raw: Record<string, unknown>; usage: UsageRecord | undefined };

export interface AnswerDecoder {
  /** The attempt's outcome when it breaks before anything reached the client. */
  readonly brokenOutcome: string;
}

/** One upstream event and what it translated to, in order. */
export interface EventItems {
  /** Undefined for what the end of the body gave (a whole answer, a translator's last items): no event of its own. */
  event: SseEvent | undefined;
  items: AnswerItem[];
  /** A same-dialect event relayed as the bytes that arrived, not translated (its items are none). */
  relay?: RelayedEvent;
}

/** An event of the client's own dialect, as it came (engine/byte-event-decoder.ts). */
export interface RelayedEvent {
  /** The whole SSE frame, blank line included: what the client gets. */
  frame: Buffer;
  /** Its data (one JSON chunk). */
  data: Buffer;
  /** UTF-8 bytes of the produced text in it, as the usage meter counts them. */
  producedBytes: number;
}

const NO_GROUPS: EventItems[] = [];

/** A streamed answer, read as it comes: bytes in, the items of each upstream event they complete. */
export class StreamDecoder implements AnswerDecoder {
  readonly brokenOutcome = "stream_failed";
  private readonly parser: SseParser | AwsEventStreamParser;

  /**
   * @param maxEventLength the largest single event held (a larger one throws UpstreamBodyTooLarge).
   * @param midStream SSE input that starts at an event boundary inside the stream (no byte-order mark).
   */
  constructor(
    private readonly translator: StreamTranslator,
    maxEventLength: number,
    midStream = false,
  ) {
    this.parser =
      translator.framing === "aws-eventstream" ? new AwsEventStreamParser(maxEventLength) : new SseParser(maxEventLength, midStream);
  }

  push(bytes: Buffer): EventItems[] {
    const items = this.parser.push(bytes);
    if (items.length === 0) return NO_GROUPS;
    const groups: EventItems[] = [];
    // Comments (keep-alives) are not events: they reach neither the translator nor the idle limit.
    for (const item of items) {
      if (item.kind !== "event") continue;
      const event = this.translator.unwrap?.(item.event) ?? item.event;
      groups.push({ event, items: this.translator.push(event) });
    }
    return groups;
  }

  /** The body ended without a transport error: the last items. */
  end(): AnswerItem[] {
    // An event-stream message that could not be read throws here (the stream failed); what an SSE body's
    // last, unterminated bytes held is dropped, as the standard says.
    this.parser.end();
    return this.translator.end();
  }
}

/** A whole answer, read to its end (undici's text(): UTF-8, a byte-order mark dropped) and translated once. */
export class WholeDecoder implements AnswerDecoder {
  readonly brokenOutcome = "body_unreadable";

  /**
   * @param read the provider codec's reading of a whole body into the shared representation (throws when it is not an answer).
   * @param usage the codec's reading of the body's usage into the one record.
   */
  constructor(
    private readonly read: (json: unknown) => Record<string, unknown>,
    private readonly usage: (json: unknown) => UsageRecord | undefined,
  ) {}

  /** A 200 body that is not an answer the codec can read (cut, not JSON, an error) is never relayed. */
  decode(text: string): AnswerItem[] {
    let raw: Record<string, unknown>;
    let answer: Record<string, unknown>;
    try {
      raw = JSON.parse(text);
      answer = this.read(raw);
    } catch {
      return [{ kind: "error" }];
    }
    return [{ kind: "answer", answer, raw, usage: this.usage(raw) }, { kind: "done" }];
  }
}
