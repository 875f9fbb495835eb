// The scan of one OpenAI chat chunk or completion (json-scan.ts), for the
// same-dialect relay (chunks: engine/byte-event-decoder.ts; a whole answer:
// engine/chat-byte-relay.ts): the produced text's UTF-8 length as the usage
// meter counts it (each choice's `delta` or `message`),
// and where `usage`, its `cost`, `service_tier` and the closing brace are, so
// that the cost can be spliced in. An `error` key, duplicate `choices`,
// `usage`, `delta` or `cost` keys, or a choice that is not an object leave the
// bytes to the parser.
import { GIVE_UP, JsonScan, TOP } from "../json-scan";

const CHOICES = Buffer.from("choices");
const USAGE = Buffer.from("usage");
const COST = Buffer.from("cost");
const ERROR = Buffer.from("error");
const SERVICE = Buffer.from("service");
const SERVICE_TIER = Buffer.from("service_tier");
/** A chunk's content key, and a completion's. */
export const DELTA = Buffer.from("delta");
export const MESSAGE = Buffer.from("message");

// This scan's kinds of objects.
const CHOICE = 1;
const IN_USAGE = 2;

/** What a scan found; positions are offsets in the scanned buffer. */
export interface ChatScan {
  /** UTF-8 bytes of the produced text of every choice's `delta` (or `message`). */
  producedBytes: number;
  /** Whether `choices` is an array. */
  choicesArray: boolean;
  /** The `usage` value's start and end; -1 when absent. `usageNull`: its value is null. */
  usageStart: number;
  usageEnd: number;
  usageNull: boolean;
  /** The value of `usage.cost` (start, end); -1 when it has none. */
  costStart: number;
  costEnd: number;
  /** The top-level object's closing brace. */
  closeAt: number;
  /** The top-level `service_tier` value (start, end); -1 when absent. */
  tierStart: number;
  tierEnd: number;
  /** A top-level `service` key is there. */
  hasService: boolean;
}

export class ChatJsonScan extends JsonScan implements ChatScan {
  choicesArray = false;
  usageStart = -1;
  usageEnd = -1;
  usageNull = false;
  costStart = -1;
  costEnd = -1;
  tierStart = -1;
  tierEnd = -1;
  hasService = false;
  private contentKey: Buffer = DELTA;
  private choicesSeen = false;
  /** The current choice's `delta` (or `message`) was read. */
  private contentSeen = false;

  /**
   * Scans `bytes[start, end)` (valid UTF-8: the caller checked) as a chunk (`contentKey` DELTA) or a
   * completion (MESSAGE). False when the bytes need the parser: not one JSON object, an `error` key,
   * images, or a shape the scan does not read with certainty.
   */
  scan(bytes: Buffer, start: number, end: number, contentKey: Buffer): boolean {
    this.contentKey = contentKey;
    this.choicesArray = false;
    this.usageStart = this.usageEnd = this.costStart = this.costEnd = this.tierStart = this.tierEnd = -1;
    this.usageNull = false;
    this.hasService = false;
    this.choicesSeen = false;
    return this.run(bytes, start, end);
  }

  protected override opened(kind: number): void {
    if (kind === CHOICE) this.contentSeen = false;
  }

  protected member(kind: number, keyStart: number, keyEnd: number): void {
    if (kind === TOP) this.topMember(keyStart, keyEnd);
    else if (kind === CHOICE) this.choiceMember(keyStart, keyEnd);
    else this.usageMember(keyStart, keyEnd);
  }

  private topMember(keyStart: number, keyEnd: number): void {
    if (this.is(keyStart, keyEnd, ERROR)) throw GIVE_UP;
    if (this.is(keyStart, keyEnd, CHOICES)) {
      if (this.choicesSeen) throw GIVE_UP;
      this.choicesSeen = true;
      if (this.peek() !== 0x5b) this.value(false);
      else {
        this.choicesArray = true;
        this.array(CHOICE);
      }
      return;
    }
    if (this.is(keyStart, keyEnd, USAGE)) {
      if (this.usageStart !== -1) throw GIVE_UP;
      this.usageStart = this.at;
      if (this.peek() === 0x7b) this.object(IN_USAGE);
      else {
        this.usageNull = this.peek() === 0x6e;
        this.value(false);
      }
      this.usageEnd = this.at;
      return;
    }
    if (this.is(keyStart, keyEnd, SERVICE_TIER)) {
      if (this.tierStart !== -1) throw GIVE_UP;
      this.tierStart = this.at;
      this.value(false);
      this.tierEnd = this.at;
      return;
    }
    if (this.is(keyStart, keyEnd, SERVICE)) this.hasService = true;
    this.value(false);
  }

  /** A member of one element of `choices`: its `delta` (or `message`) counted. */
  private choiceMember(keyStart: number, keyEnd: number): void {
    if (!this.is(keyStart, keyEnd, this.contentKey)) {
      this.value(false);
      return;
    }
    if (this.contentSeen) throw GIVE_UP;
    this.contentSeen = true;
    this.value(true);
  }

  private usageMember(keyStart: number, keyEnd: number): void {
    if (!this.is(keyStart, keyEnd, COST)) {
      this.value(false);
      return;
    }
    if (this.costStart !== -1) throw GIVE_UP;
    this.costStart = this.at;
    this.value(false);
    this.costEnd = this.at;
  }
}
