// Same-dialect answers as bytes: an OpenAI chat client answered by an
// OpenAI-compatible upstream gets the upstream's own bytes, not a parse and a
// rendering of them. A stream is framed at the Buffer level; each event in the
// canonical form (`data: <one line of JSON>` and a blank line) that carries
// neither usage nor an error is scanned, not parsed (chat-json-scan.ts: is it
// JSON, how much text it produced), and relayed as it came. Every other event
// is parsed and translated as before (usage, errors, [DONE], anything the scan
// does not read with certainty), and once the framing leaves the canonical
// form (a CR, a BOM, `event:` or `id:` lines, a comment within an event, an
// event larger than the limit) the rest of the stream goes through the SSE
// parser as before. A whole answer is scanned the same way: its usage alone is
// parsed, and the cost spliced into the upstream's bytes.
import { isUtf8 } from "node:buffer";
import type { UsageRecord } from "../billing/pricing";
import { ChatJsonScan } from "../dialects/openai/chat-json-scan";
import type { StreamTranslator } from "../providers/provider-adapter";
import type { SseEvent } from "../upstream/sse-parser";
import { type AnswerDecoder, type AnswerItem, type EventItems, StreamDecoder } from "./answer-decoders";

const LF = 0x0a;
const CR = 0x0d;
const BLANK_LINE = Buffer.from("\n\n");
const DATA = Buffer.from("data: ");
const DONE = Buffer.from("[DONE]");
const DELTA = Buffer.from("delta");
const MESSAGE = Buffer.from("message");
const NO_ITEMS: AnswerItem[] = [];

/** A streamed chat answer from an upstream that speaks the client's dialect: events relayed as bytes where they can be. */
export class ChatByteDecoder implements AnswerDecoder {
  readonly brokenOutcome = "stream_failed";
  /** The start of an event not complete yet. */
  private rest: Buffer | undefined;
  /** The SSE parser, once the stream left the canonical framing. */
  private parsed: StreamDecoder | undefined;
  private first = true;
  private readonly scan = new ChatJsonScan();

  /** @param maxEventLength the largest single event held (the parser, taking over, refuses a larger one). */
  constructor(
    private readonly translator: StreamTranslator,
    private readonly maxEventLength: number,
  ) {}

  push(chunk: Buffer): EventItems[] {
    if (this.parsed) return this.parsed.push(chunk);
    const bytes = this.rest ? Buffer.concat([this.rest, chunk]) : chunk;
    this.rest = undefined;
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
      // One line: a comment (dropped, as the parser drops them) or `data: ` and the JSON; else the parser's.
      if (bytes.indexOf(LF, start) !== end) return this.handOver(bytes, start, groups, true);
      if (bytes[start] !== 0x3a) {
        if (!startsWith(bytes, start, end, DATA)) return this.handOver(bytes, start, groups, true);
        groups.push(this.event(bytes, start, end));
      }
      start = end + 2;
    }
    if (start < bytes.length) {
      if (cr !== -1 || bytes.length - start > this.maxEventLength) return this.handOver(bytes, start, groups, true);
      this.rest = bytes.subarray(start);
    }
    return groups;
  }

  /** The body ended: an unfinished event is dropped, as the standard says; then the translator's last items. */
  end(): AnswerItem[] {
    if (this.parsed) return this.parsed.end();
    this.rest = undefined;
    return this.translator.end();
  }

  /** One `data:` event: relayed as it came when it is a chunk without usage or error, else parsed and translated. */
  private event(bytes: Buffer, start: number, end: number): EventItems {
    const from = start + DATA.length;
    const data = bytes.subarray(from, end);
    const { scan } = this;
    if (
      !(end - from === DONE.length && startsWith(bytes, from, end, DONE)) &&
      isUtf8(data) &&
      scan.scan(bytes, from, end, DELTA) &&
      (scan.usageStart === -1 || scan.usageNull)
    )
      return {
        event: undefined,
        items: NO_ITEMS,
        relay: { frame: bytes.subarray(start, end + 2), data, producedBytes: scan.producedBytes },
      };
    const event: SseEvent = { event: "message", data: data.toString("utf8"), id: undefined };
    return { event, items: this.translator.push(event) };
  }

  /** The SSE parser reads on from `start` (an event boundary), for the rest of the stream. */
  private handOver(bytes: Buffer, start: number, groups: EventItems[], midStream: boolean): EventItems[] {
    this.parsed = new StreamDecoder(this.translator, this.maxEventLength, midStream);
    groups.push(...this.parsed.push(bytes.subarray(start)));
    return groups;
  }
}

/** Whether bytes[start, end) starts with `prefix` (compared in place: cheaper than a native call for a few bytes). */
function startsWith(bytes: Buffer, start: number, end: number, prefix: Buffer): boolean {
  if (end - start < prefix.length) return false;
  for (let index = 0; index < prefix.length; index++) if (bytes[start + index] !== prefix[index]) return false;
  return true;
}

/** A whole chat completion read from its bytes: its usage (parsed alone) and where to splice the cost. */
export interface WholeChatBytes {
  bytes: Buffer;
  scan: ChatJsonScan;
  /** The upstream's usage object, as the meter keeps it. */
  usage: Record<string, unknown>;
  record: UsageRecord | undefined;
}

/**
 * A whole answer the bytes path can relay: valid UTF-8 without a byte-order mark, a completion the scan
 * reads (an array of choices, no error, no images), a usage object, and no `service` of its own when
 * one is asked for. Undefined otherwise: the answer is parsed as before.
 * @param usageOf the codec's reading of the usage (it reads `usage` and `service_tier` only).
 */
export function wholeChatBytes(
  bytes: Buffer,
  withService: boolean,
  usageOf: (json: { usage: unknown; service_tier?: unknown }) => UsageRecord | undefined,
): WholeChatBytes | undefined {
  if (bytes[0] === 0xef || !isUtf8(bytes)) return undefined;
  const scan = new ChatJsonScan();
  if (!scan.scan(bytes, 0, bytes.length, MESSAGE) || !scan.choicesArray) return undefined;
  if (scan.usageStart === -1 || bytes[scan.usageStart] !== 0x7b || (withService && scan.hasService)) return undefined;
  const usage = JSON.parse(bytes.toString("utf8", scan.usageStart, scan.usageEnd)) as Record<string, unknown>;
  const tier = scan.tierStart === -1 ? undefined : (JSON.parse(bytes.toString("utf8", scan.tierStart, scan.tierEnd)) as unknown);
  return { bytes, scan, usage, record: usageOf({ usage, service_tier: tier }) };
}
