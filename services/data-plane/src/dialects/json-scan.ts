// A validating scan of one JSON object as bytes, for the same-dialect relays
// (engine/byte-event-decoder.ts): it reads what the gateway must know of an
// answer's event without building objects, with the rules of JSON.parse
// (RFC 8259's grammar; the caller checked the bytes are UTF-8). A dialect's
// scan says which members it reads (`member`); produced content is counted as
// the usage meter counts it (engine/usage-meter.ts, producedText). Anything
// read without certainty (a duplicate or escaped key that matters, images,
// lone surrogate escapes, nesting past 64) makes it give up: the caller then
// parses the event as before.
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const MAX_DEPTH = 64;

/** Keys of a message or delta that carry no produced content (usage-meter.ts), as bytes. */
const NON_CONTENT = ["role", "type", "id", "index"].map((key) => Buffer.from(key));
const IMAGES = Buffer.from("images");

/** The top-level object's kind; a scan's own kinds are other positive numbers. */
export const TOP = 0;
/** Members read only to check them. */
const OTHER = -1;
/** Produced content: its strings counted by the meter's rule. */
const PRODUCED = -2;

/** Thrown to leave the scan: the bytes need the parser. */
export const GIVE_UP = new Error("not for the scan");

export abstract class JsonScan {
  /** UTF-8 bytes of the produced text the scan counted. */
  producedBytes = 0;
  /** The top-level object's closing brace. */
  closeAt = -1;
  protected bytes: Buffer = Buffer.alloc(0);
  protected at = 0;
  protected end = 0;
  private depth = 0;
  /** The last string read had an escape. */
  protected escaped = false;

  /** Scans `bytes[start, end)` as one JSON object; false when the bytes need the parser. */
  protected run(bytes: Buffer, start: number, end: number): boolean {
    this.bytes = bytes;
    this.at = start;
    this.end = end;
    this.depth = 0;
    this.producedBytes = 0;
    this.closeAt = -1;
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

  /** Reads the value of a member of an object of the scan's own `kind` (TOP or its others). */
  protected abstract member(kind: number, keyStart: number, keyEnd: number): void;

  protected peek(): number {
    return this.at < this.end ? this.bytes[this.at]! : -1;
  }

  protected space(): void {
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

  /** Reads an object whose members are of `kind` (TOP, the scan's own, PRODUCED or OTHER). */
  protected object(kind: number): void {
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
    this.opened(kind);
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
      else this.member(kind, keyStart, keyEnd);
      this.space();
      const next = this.peek();
      this.at++;
      if (next === 0x7d) break;
      if (next !== 0x2c) throw GIVE_UP;
    }
    this.depth--;
  }

  /** An object of the scan's own `kind` starts. */
  protected opened(_kind: number): void {}

  protected is(keyStart: number, keyEnd: number, name: Buffer): boolean {
    if (keyEnd - keyStart !== name.length) return false;
    const { bytes } = this;
    for (let index = 0; index < name.length; index++) if (bytes[keyStart + index] !== name[index]) return false;
    return true;
  }

  /**
   * Reads a string value without escapes and gives its start (its end is `this.at - 1`); another value,
   * or an escaped string (it may spell a name that matters), is the parser's.
   */
  protected plainString(): number {
    if (this.peek() !== QUOTE) throw GIVE_UP;
    const start = this.at + 1;
    this.string(false);
    if (this.escaped) throw GIVE_UP;
    return start;
  }

  /** Reads a value: the UTF-8 bytes of its text when it is a string, else -1. */
  protected textBytes(): number {
    if (this.peek() === QUOTE) return this.string(true);
    this.value(false);
    return -1;
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

  /** Reads an array whose elements are produced content (PRODUCED), anything (OTHER), or objects of the scan's own `kind`. */
  protected array(kind: number): void {
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
      if (kind === PRODUCED || kind === OTHER) this.value(kind === PRODUCED);
      else {
        // An element that is not an object is read by the parser (the meter reads each one's fields).
        if (this.peek() !== 0x7b) throw GIVE_UP;
        this.object(kind);
      }
      this.space();
      const next = this.peek();
      this.at++;
      if (next === 0x5d) break;
      if (next !== 0x2c) throw GIVE_UP;
    }
    this.depth--;
  }

  /** Any JSON value; `produced`: its strings are produced text (the meter's rules), counted. */
  protected value(produced: boolean): void {
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

/** Whether the bytes at `start` begin with `prefix` (compared in place: cheaper than a native call for a few bytes). */
export function startsWith(bytes: Buffer, start: number, prefix: Buffer): boolean {
  if (bytes.length - start < prefix.length) return false;
  for (let index = 0; index < prefix.length; index++) if (bytes[start + index] !== prefix[index]) return false;
  return true;
}

/** Whether bytes[start, end) are exactly `word`. */
export function bytesAre(bytes: Buffer, start: number, end: number, word: Buffer): boolean {
  return end - start === word.length && startsWith(bytes, start, word);
}
