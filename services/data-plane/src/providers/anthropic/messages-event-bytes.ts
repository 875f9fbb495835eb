// Which events of an Anthropic Messages stream go out as bytes
// (engine/byte-event-decoder.ts): `content_block_delta` with a text or
// thinking delta, the bulk of an answer. Their produced text is counted as the
// meter counts the translator's chunk (anthropic-stream-translator.ts: the
// delta's `text` or `thinking`, when a non-empty string). Every other event
// (message_start, tool input deltas, message_delta with the usage, errors...)
// is parsed.
import { bytesAre, GIVE_UP, JsonScan, TOP } from "../../dialects/json-scan";
import type { EventBytes } from "../provider-adapter";

const CONTENT_BLOCK_DELTA = Buffer.from("content_block_delta");
const DELTA = Buffer.from("delta");
const TYPE = Buffer.from("type");
const TEXT_DELTA = Buffer.from("text_delta");
const THINKING_DELTA = Buffer.from("thinking_delta");
const TEXT = Buffer.from("text");
const THINKING = Buffer.from("thinking");

/** The delta object of a content_block_delta. */
const IN_DELTA = 1;

/** A content_block_delta's data: its delta's type and the produced text of a text or thinking delta. */
class ContentDeltaScan extends JsonScan {
  /** 1: text_delta, 2: thinking_delta, 0: another (or none). */
  private kind = 0;
  private deltaSeen = false;
  private typeSeen = false;
  /** UTF-8 bytes of `text` and `thinking`; -1 when absent or not a string. */
  private text = -1;
  private thinking = -1;
  private textSeen = false;
  private thinkingSeen = false;

  /** The produced bytes of a text or thinking delta; -1 when the event is the parser's. */
  read(bytes: Buffer, start: number, end: number): number {
    this.kind = 0;
    this.deltaSeen = this.typeSeen = this.textSeen = this.thinkingSeen = false;
    this.text = this.thinking = -1;
    if (!this.run(bytes, start, end)) return -1;
    // The translator counts a non-empty string only; an empty one makes no chunk (0 bytes either way).
    if (this.kind === 1) return Math.max(this.text, 0);
    if (this.kind === 2) return Math.max(this.thinking, 0);
    return -1;
  }

  protected member(kind: number, keyStart: number, keyEnd: number): void {
    if (kind === TOP) {
      if (!this.is(keyStart, keyEnd, DELTA)) this.value(false);
      else {
        if (this.deltaSeen || this.peek() !== 0x7b) throw GIVE_UP;
        this.deltaSeen = true;
        this.object(IN_DELTA);
      }
      return;
    }
    if (this.is(keyStart, keyEnd, TYPE)) {
      if (this.typeSeen) throw GIVE_UP;
      this.typeSeen = true;
      const start = this.plainString();
      if (this.is(start, this.at - 1, TEXT_DELTA)) this.kind = 1;
      else if (this.is(start, this.at - 1, THINKING_DELTA)) this.kind = 2;
      return;
    }
    const text = this.is(keyStart, keyEnd, TEXT);
    if (!text && !this.is(keyStart, keyEnd, THINKING)) {
      this.value(false);
      return;
    }
    // A second of either is the parser's (it keeps the last).
    if (text ? this.textSeen : this.thinkingSeen) throw GIVE_UP;
    if (text) {
      this.textSeen = true;
      this.text = this.textBytes();
    } else {
      this.thinkingSeen = true;
      this.thinking = this.textBytes();
    }
  }
}

export class MessagesEventBytes implements EventBytes {
  private readonly scan = new ContentDeltaScan();

  relayable(bytes: Buffer, nameStart: number, nameEnd: number, dataStart: number, dataEnd: number): number {
    if (nameStart === -1 || !bytesAre(bytes, nameStart, nameEnd, CONTENT_BLOCK_DELTA)) return -1;
    return this.scan.read(bytes, dataStart, dataEnd);
  }
}
