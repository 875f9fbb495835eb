// AWS's binary event stream (`application/vnd.amazon.eventstream`, Bedrock's
// streamed answers) read as the same events the SSE parser gives, so one
// engine path serves both. Each message is length-prefixed; this class only
// cuts the byte stream at those lengths, and the Smithy codec decodes each
// message (prelude and message CRC-32s checked, typed headers parsed).
//
// A message becomes an SseEvent named for what it is:
// - `:message-type event`: its `:event-type` (e.g. `contentBlockDelta`, `chunk`), data = the payload text;
// - `:message-type exception`: `exception:<:exception-type>` (e.g. `exception:throttlingException`);
// - `:message-type error`: `error:<:error-code>`.
import { EventStreamCodec } from "@smithy/core/event-streams";
import { fromUtf8, toUtf8 } from "@smithy/util-utf8";
import { UpstreamBodyTooLarge } from "./body-limit";
import type { SseItem } from "./sse-parser";

const PRELUDE_BYTES = 12;
const NO_ITEMS: SseItem[] = [];

/** The frame is not an event-stream message (a bad CRC, a length out of bounds). */
export class EventStreamFrameError extends Error {}

export class AwsEventStreamParser {
  private readonly codec = new EventStreamCodec(toUtf8, fromUtf8);
  /** Bytes received and not yet cut into messages. */
  private pending: Buffer = Buffer.alloc(0);
  /** A message that could not be read after good ones in the same chunk: thrown at the next push or end. */
  private failure: Error | undefined;

  /** @param maxMessageBytes the largest message held (a larger one throws UpstreamBodyTooLarge); AWS's own limit is 16 MiB. */
  constructor(private readonly maxMessageBytes = 16 * 1024 * 1024) {}

  /**
   * Feeds bytes and returns the messages they complete. A message that cannot be read throws, but the
   * good ones before it in the same chunk are returned first (their usage is not lost with it).
   */
  push(chunk: Uint8Array): SseItem[] {
    if (this.failure) throw this.failure;
    this.pending = this.pending.length === 0 ? Buffer.from(chunk) : Buffer.concat([this.pending, chunk]);
    const items: SseItem[] = [];
    try {
      while (this.pending.length >= 4) {
        const length = this.pending.readUInt32BE(0);
        if (length < PRELUDE_BYTES + 4)
          throw new EventStreamFrameError(`an event-stream message of ${length} bytes is shorter than its prelude`);
        if (length > this.maxMessageBytes) throw new UpstreamBodyTooLarge(this.maxMessageBytes);
        if (this.pending.length < length) break;
        const message = this.pending.subarray(0, length);
        this.pending = this.pending.subarray(length);
        items.push({ kind: "event", event: this.read(message) });
      }
    } catch (error) {
      if (items.length === 0) throw error;
      this.failure = error as Error;
    }
    return items.length === 0 ? NO_ITEMS : items;
  }

  /** The body ended: a message cut short is lost (the translator sees the stream end without its last event). */
  end(): SseItem[] {
    this.pending = Buffer.alloc(0);
    if (this.failure) throw this.failure;
    return NO_ITEMS;
  }

  private read(bytes: Uint8Array): { event: string; data: string; id: undefined } {
    let decoded: ReturnType<EventStreamCodec["decode"]>;
    try {
      decoded = this.codec.decode(bytes);
    } catch (error) {
      throw new EventStreamFrameError((error as Error).message);
    }
    const header = (name: string) => {
      const value = decoded.headers[name];
      return value?.type === "string" ? value.value : "";
    };
    const messageType = header(":message-type");
    const event =
      messageType === "exception"
        ? `exception:${header(":exception-type")}`
        : messageType === "error"
          ? `error:${header(":error-code")}`
          : header(":event-type");
    return { event, data: toUtf8(decoded.body), id: undefined };
  }
}
