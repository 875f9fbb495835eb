// A validating scan of one OpenAI chat chunk or completion, as bytes, for the
// same-dialect relay (engine/chat-byte-relay.ts): it reads what the gateway
// must know without building objects. It says whether the bytes are one JSON
// object (the rules of JSON.parse), the produced text's UTF-8 length as the
// usage meter counts it (engine/usage-meter.ts, producedText of each choice's
// `delta` or `message`), and where `usage` and its `cost` are, so that the
// cost can be spliced in. Anything it does not read with certainty (an error,
// images, duplicate keys, escaped keys, lone surrogates, deep nesting) makes
// it give up: the caller then parses the event as before.
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const MAX_DEPTH = 64;

/** Keys of a message or delta that carry no produced content (usage-meter.ts), as bytes. */
const NON_CONTENT = ["role", "type", "id", "index"].map((key) => Buffer.from(key));
const IMAGES = Buffer.from("images");
const CHOICES = Buffer.from("choices");
const USAGE = Buffer.from("usage");
const COST = Buffer.from("cost");
const ERROR = Buffer.from("error");
const SERVICE = Buffer.from("service");
const SERVICE_TIER = Buffer.from("service_tier");

// What an object's members are, for `object` and `array`.
const TOP = 0;
const CHOICE = 1;
const IN_USAGE = 2;
const PRODUCED = 3;
const OTHER = 4;

/** Thrown to leave the scan: the bytes need the parser. */
const GIVE_UP = new Error("not for the scan");

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

export class ChatJsonScan implements ChatScan {
  producedBytes = 0;
  choicesArray = false;
  usageStart = -1;
  usageEnd = -1;
  usageNull = false;
  costStart = -1;
  costEnd = -1;
  closeAt = -1;
  tierStart = -1;
  tierEnd = -1;
  hasService = false;
  private bytes: Buffer = Buffer.alloc(0);
  private at = 0;
  private end = 0;
  private depth = 0;
  private contentKey: Buffer = Buffer.alloc(0);
  /** The last string read had an escape. */
  private escaped = false;
  private choicesSeen = false;
  /** The current choice's `delta` (or `message`) was read. */
  private contentSeen = false;

  /**
   * Scans `bytes[start, end)` (valid UTF-8: the caller checked) as a chunk (`contentKey` "delta") or a
   * completion ("message"). False when the bytes need the parser: not one JSON object, an `error` key,
   * images, or a shape the scan does not read with certainty.
   */
  scan(bytes: Buffer, start: number, end: number, contentKey: Buffer): boolean {
    this.bytes = bytes;
    this.at = start;
    this.end = end;
    this.depth = 0;
    this.contentKey = contentKey;
    this.producedBytes = 0;
    this.choicesArray = false;
    this.usageStart = this.usageEnd = this.costStart = this.costEnd = this.closeAt = this.tierStart = this.tierEnd = -1;
    this.usageNull = false;
    this.hasService = false;
    this.choicesSeen = false;
    try {
      this.space();
      if (this.peek() !== 0x7b) return false;
      this.object(TOP);
      this.closeAt = this.at - 1;
      this.space();
      return this.at === end;
    } catch (error) {
      if (error === GIVE_UP || error instanceof RangeError) return false;
      throw error;
    }
  }

  private peek(): number {
    return this.at < this.end ? this.bytes[this.at]! : -1;
  }

  private space(): void {
    const { bytes, end } = this;
    let at = this.at;
    // JSON's space, tab, LF and CR (an SSE data line holds no LF or CR: the framer saw to that).
    while (at < end) {
      const byte = bytes[at]!;
      if (byte !== 0x20 && byte !== 0x09 && byte !== 0x0a && byte !== 0x0d) break;
      at++;
    }
    this.at = at;
  }

  private expect(byte: number): void {
    this.space();
    if (this.peek() !== byte) throw GIVE_UP;
    this.at++;
  }

  /** Reads an object whose members are of `kind` (TOP, CHOICE, IN_USAGE, PRODUCED or OTHER). */
  private object(kind: number): void {
    if (++this.depth > MAX_DEPTH) throw GIVE_UP;
    this.at++; // the "{" the caller saw
    this.space();
    if (this.peek() === 0x7d) {
      this.at++;
      this.depth--;
      return;
    }
    // Produced content's keys, as (start, end) pairs: a duplicate would be counted twice here, once by the parser.
    const keys: number[] | undefined = kind === PRODUCED ? [] : undefined;
    if (kind === CHOICE) this.contentSeen = false;
    for (;;) {
      this.space();
      if (this.peek() !== QUOTE) throw GIVE_UP;
      const keyStart = this.at + 1;
      this.string(false);
      const keyEnd = this.at - 1;
      // An escaped key may spell a key that matters: the parser reads it.
      if (this.escaped) throw GIVE_UP;
      this.expect(0x3a);
      this.space();
      if (kind === OTHER) this.value(false);
      else if (kind === PRODUCED) this.producedMember(keyStart, keyEnd, keys!);
      else if (kind === TOP) this.topMember(keyStart, keyEnd);
      else if (kind === CHOICE) this.choiceMember(keyStart, keyEnd);
      else this.usageMember(keyStart, keyEnd);
      this.space();
      const next = this.peek();
      this.at++;
      if (next === 0x7d) break;
      if (next !== 0x2c) throw GIVE_UP;
    }
    this.depth--;
  }

  private is(keyStart: number, keyEnd: number, name: Buffer): boolean {
    if (keyEnd - keyStart !== name.length) return false;
    const { bytes } = this;
    for (let index = 0; index < name.length; index++) if (bytes[keyStart + index] !== name[index]) return false;
    return true;
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

  /** A member inside produced content: keys not content are skipped; images and duplicate keys need the parser. */
  private producedMember(keyStart: number, keyEnd: number, keys: number[]): void {
    if (this.is(keyStart, keyEnd, IMAGES)) throw GIVE_UP;
    const { bytes } = this;
    const length = keyEnd - keyStart;
    for (let index = 0; index < keys.length; index += 2) {
      const other = keys[index]!;
      if (keys[index + 1]! - other !== length) continue;
      let same = true;
      for (let offset = 0; offset < length && same; offset++) same = bytes[keyStart + offset] === bytes[other + offset];
      if (same) throw GIVE_UP;
    }
    keys.push(keyStart, keyEnd);
    let content = true;
    for (const name of NON_CONTENT) if (this.is(keyStart, keyEnd, name)) content = false;
    this.value(content);
  }

  /** Reads an array whose elements are choices (CHOICE: objects only), produced content (PRODUCED) or anything (OTHER). */
  private array(kind: number): void {
    if (++this.depth > MAX_DEPTH) throw GIVE_UP;
    this.at++; // the "[" the caller saw
    this.space();
    if (this.peek() === 0x5d) {
      this.at++;
      this.depth--;
      return;
    }
    for (;;) {
      this.space();
      if (kind === CHOICE) {
        // A choice that is not an object is read by the parser (the meter reads each choice's field).
        if (this.peek() !== 0x7b) throw GIVE_UP;
        this.object(CHOICE);
      } else this.value(kind === PRODUCED);
      this.space();
      const next = this.peek();
      this.at++;
      if (next === 0x5d) break;
      if (next !== 0x2c) throw GIVE_UP;
    }
    this.depth--;
  }

  /** Any JSON value; `produced`: its strings are produced text (the meter's rules), counted. */
  private value(produced: boolean): void {
    this.space();
    const byte = this.peek();
    if (byte === QUOTE) {
      const bytes = this.string(produced);
      if (produced) this.producedBytes += bytes;
    } else if (byte === 0x7b) this.object(produced ? PRODUCED : OTHER);
    else if (byte === 0x5b) this.array(produced ? PRODUCED : OTHER);
    else if (byte === 0x74) this.literal("true");
    else if (byte === 0x66) this.literal("false");
    else if (byte === 0x6e) this.literal("null");
    else this.number();
  }

  private literal(word: "true" | "false" | "null"): void {
    if (this.at + word.length > this.end) throw GIVE_UP;
    for (let index = 0; index < word.length; index++) if (this.bytes[this.at + index] !== word.charCodeAt(index)) throw GIVE_UP;
    this.at += word.length;
  }

  private number(): void {
    const { bytes, end } = this;
    let at = this.at;
    if (at < end && bytes[at] === 0x2d) at++;
    if (!isDigit(bytes, at, end)) throw GIVE_UP;
    if (bytes[at] === 0x30) at++;
    else while (isDigit(bytes, at, end)) at++;
    if (at < end && bytes[at] === 0x2e) {
      at++;
      if (!isDigit(bytes, at, end)) throw GIVE_UP;
      while (isDigit(bytes, at, end)) at++;
    }
    if (at < end && (bytes[at] === 0x65 || bytes[at] === 0x45)) {
      at++;
      if (at < end && (bytes[at] === 0x2b || bytes[at] === 0x2d)) at++;
      if (!isDigit(bytes, at, end)) throw GIVE_UP;
      while (isDigit(bytes, at, end)) at++;
    }
    this.at = at;
  }

  /** A string from its opening quote; the UTF-8 length of its decoded text when `count`, else 0. */
  private string(count: boolean): number {
    const { bytes, end } = this;
    let at = this.at + 1;
    let length = 0;
    this.escaped = false;
    for (;;) {
      if (at >= end) throw GIVE_UP;
      const byte = bytes[at]!;
      if (byte === QUOTE) break;
      if (byte < 0x20) throw GIVE_UP;
      if (byte !== BACKSLASH) {
        at++;
        length++;
        continue;
      }
      this.escaped = true;
      const kind = bytes[at + 1];
      if (kind === 0x75) {
        const unit = this.hex(at + 2);
        at += 6;
        if (unit < 0x80) length += 1;
        else if (unit < 0x800) length += 2;
        else if (unit >= 0xd800 && unit <= 0xdbff) {
          // A pair is one code point (4 bytes); a lone half joins text across strings: the parser counts it.
          if (bytes[at] !== BACKSLASH || bytes[at + 1] !== 0x75) throw GIVE_UP;
          const low = this.hex(at + 2);
          if (low < 0xdc00 || low > 0xdfff) throw GIVE_UP;
          at += 6;
          length += 4;
        } else if (unit >= 0xdc00 && unit <= 0xdfff) throw GIVE_UP;
        else length += 3;
      } else if (
        kind === QUOTE ||
        kind === BACKSLASH ||
        kind === 0x2f ||
        kind === 0x62 ||
        kind === 0x66 ||
        kind === 0x6e ||
        kind === 0x72 ||
        kind === 0x74
      ) {
        at += 2;
        length++;
      } else throw GIVE_UP;
    }
    this.at = at + 1;
    return count ? length : 0;
  }

  private hex(at: number): number {
    if (at + 4 > this.end) throw GIVE_UP;
    let unit = 0;
    for (let index = at; index < at + 4; index++) {
      const byte = this.bytes[index]!;
      const digit =
        byte >= 0x30 && byte <= 0x39
          ? byte - 0x30
          : byte >= 0x61 && byte <= 0x66
            ? byte - 0x57
            : byte >= 0x41 && byte <= 0x46
              ? byte - 0x37
              : -1;
      if (digit < 0) throw GIVE_UP;
      unit = unit * 16 + digit;
    }
    return unit;
  }
}

function isDigit(bytes: Buffer, at: number, end: number): boolean {
  return at < end && bytes[at]! >= 0x30 && bytes[at]! <= 0x39;
}
