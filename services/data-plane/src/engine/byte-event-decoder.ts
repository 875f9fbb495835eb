// A streamed answer from an upstream that speaks the client's dialect, framed
// at the Buffer level: each event in the canonical form (`data: <one line>`,
// or `event: <name>` and one `data:` line, then a blank line) that the
// dialect's policy can read without parsing goes out as the bytes that
// arrived; every other event is parsed and translated as before, in order
// with them. Once the framing leaves the canonical form (a CR, a byte-order
// mark, `id:` lines, several data lines, an event larger than the limit) the
// rest of the stream goes through the SSE parser. Once the translation said
// the answer is over (`done`, an error), every later event is parsed too, as
// the translators drop what follows the end.
import { isUtf8 } from "node:buffer";
import { startsWith } from "../dialects/json-scan";
import type { EventBytes, StreamTranslator } from "../providers/provider-adapter";
import type { SseEvent } from "../upstream/sse-parser";
import { type AnswerDecoder, type AnswerItem, type EventItems, StreamDecoder } from "./answer-decoders";

const LF = 0x0a;
const CR = 0x0d;
const BLANK_LINE = Buffer.from("\n\n");
const DATA = Buffer.from("data: ");
const EVENT = Buffer.from("event: ");
const NO_ITEMS: AnswerItem[] = [];

export class ByteEventDecoder implements AnswerDecoder {
  readonly brokenOutcome = "stream_failed";
  /** The reads of an event not complete yet (joined once it is: a long event is not copied on every read). */
  private readonly pending: Buffer[] = [];
  private pendingLength = 0;
  /** The SSE parser, once the stream left the canonical framing. */
  private parsed: StreamDecoder | undefined;
  private first = true;
  /** The translation ended the answer: what follows is the translator's to drop. */
  private over = false;

  /** @param maxEventLength the largest single event held (the parser, taking over, refuses a larger one). */
  constructor(
    private readonly translator: StreamTranslator,
    private readonly maxEventLength: number,
    private readonly policy: EventBytes,
  ) {}

  push(chunk: Buffer): EventItems[] {
    if (this.parsed) return this.parsed.push(chunk);
    if (this.pending.length > 0 && this.stillPending(chunk)) return [];
    const bytes = this.pending.length > 0 ? Buffer.concat([...this.pending, chunk], this.pendingLength + chunk.length) : chunk;
    this.pending.length = 0;
    this.pendingLength = 0;
    const groups: EventItems[] = [];
    // A byte-order mark is the parser's to strip.
    if (this.first && bytes.length > 0) {
      this.first = false;
      if (bytes[0] === 0xef) return this.handOver(bytes, 0, groups, false);
    }
    // One search for a CR per read: the parser takes over at the event that holds one.
    const cr = bytes.indexOf(CR);
    let start = 0;
    for (;;) {
      // A blank line with no event before it dispatches nothing.
      while (bytes[start] === LF) start++;
      const end = bytes.indexOf(BLANK_LINE, start);
      if (end === -1) break;
      if ((cr !== -1 && cr < end + 2) || end - start > this.maxEventLength) return this.handOver(bytes, start, groups, true);
      const group = this.event(bytes, start, end);
      if (group === undefined) return this.handOver(bytes, start, groups, true);
      if (group !== null) groups.push(group);
      start = end + 2;
    }
    if (start < bytes.length) {
      if (cr !== -1 || bytes.length - start > this.maxEventLength) return this.handOver(bytes, start, groups, true);
      this.pending.push(bytes.subarray(start));
      this.pendingLength = bytes.length - start;
    }
    return groups;
  }

  /** Whether `chunk` leaves the pending event unfinished (no blank line, no CR, within the limit): then it is kept with it. */
  private stillPending(chunk: Buffer): boolean {
    const last = this.pending.at(-1)!;
    const ends = chunk.indexOf(BLANK_LINE) !== -1 || (last[last.length - 1] === LF && chunk[0] === LF);
    if (ends || chunk.indexOf(CR) !== -1 || this.pendingLength + chunk.length > this.maxEventLength) return false;
    this.pending.push(chunk);
    this.pendingLength += chunk.length;
    return true;
  }

  /** The body ended: an unfinished event is dropped, as the standard says; then the translator's last items. */
  end(): AnswerItem[] {
    if (this.parsed) return this.parsed.end();
    this.pending.length = 0;
    this.pendingLength = 0;
    return this.translator.end();
  }

  /**
   * One event block [start, end): its items or relayed bytes; null for a comment (dropped, as the parser
   * drops them); undefined for a form the parser must read.
   */
  private event(bytes: Buffer, start: number, end: number): EventItems | null | undefined {
    const lineEnd = bytes.indexOf(LF, start);
    if (bytes[start] === 0x3a) return lineEnd === end ? null : undefined;
    let nameStart = -1;
    let nameEnd = -1;
    let dataLine = start;
    if (startsWith(bytes, start, EVENT)) {
      nameStart = start + EVENT.length;
      nameEnd = lineEnd;
      dataLine = lineEnd + 1;
      if (nameEnd === nameStart || dataLine >= end || bytes.indexOf(LF, dataLine) !== end) return undefined;
    } else if (lineEnd !== end) return undefined;
    if (!startsWith(bytes, dataLine, DATA)) return undefined;
    const dataStart = dataLine + DATA.length;
    if (!isUtf8(bytes.subarray(start, end))) return undefined;
    const produced = this.over ? -1 : this.policy.relayable(bytes, nameStart, nameEnd, dataStart, end);
    if (produced >= 0)
      return {
        event: undefined,
        items: NO_ITEMS,
        relay: { frame: bytes.subarray(start, end + 2), data: bytes.subarray(dataStart, end), producedBytes: produced },
      };
    const event: SseEvent = {
      event: nameStart === -1 ? "message" : bytes.toString("utf8", nameStart, nameEnd),
      data: bytes.toString("utf8", dataStart, end),
      id: undefined,
    };
    const items = this.translator.push(event);
    for (const item of items) if (item.kind === "done" || item.kind === "error") this.over = true;
    return { event, items };
  }

  /** The SSE parser reads on from `start` (an event boundary), for the rest of the stream. */
  private handOver(bytes: Buffer, start: number, groups: EventItems[], midStream: boolean): EventItems[] {
    this.parsed = new StreamDecoder(this.translator, this.maxEventLength, midStream);
    groups.push(...this.parsed.push(bytes.subarray(start)));
    return groups;
  }
}
