// One incremental Server-Sent Events parser for every provider, following the
// WHATWG event-stream rules: lines end in CRLF, LF or CR; `data` lines of one
// event are joined with "\n"; lines starting with ":" are comments; unknown
// fields are ignored; input may be split at any byte (UTF-8 sequences and
// CRLF pairs included). One event (an unfinished line, or the data lines
// gathered) may not grow past the parser's limit: it throws UpstreamBodyTooLarge.
import { StringDecoder } from "node:string_decoder";
import { UpstreamBodyTooLarge } from "./body-limit";

export interface SseEvent {
  /** The `event:` field, "message" when absent. */
  event: string;
  data: string;
  id: string | undefined;
}

export type SseItem = { kind: "event"; event: SseEvent } | { kind: "comment"; text: string };

const LF = 10;

export class SseParser {
  // Node's UTF-8 stream decoder, cheaper per chunk than a TextDecoder for the same text: it keeps a
  // BOM, so the parser strips exactly one, for bytes and text alike; a sequence split across chunks
  // waits for its end, and invalid or truncated bytes become U+FFFD.
  private readonly decoder = new StringDecoder("utf8");
  /** Pieces of the current, unfinished line (joined once the line ends: linear in its size). */
  private partial: string[] = [];
  private partialLength = 0;
  private skipLeadingLf = false;
  private first = true;
  /** The current event's data lines joined with "\n"; undefined while it has none. */
  private data: string | undefined;
  private eventName = "";
  private lastId: string | undefined;

  /**
   * @param maxEventLength the longest event (a line, or its data lines joined) held, in characters of the decoded text.
   * @param midStream the input starts at an event boundary inside a stream (no byte-order mark to strip).
   */
  constructor(
    private readonly maxEventLength = Number.POSITIVE_INFINITY,
    midStream = false,
  ) {
    this.first = !midStream;
  }

  /** Feeds bytes (or text) and returns the complete items they finish. */
  push(chunk: Uint8Array | string): SseItem[] {
    let text = typeof chunk === "string" ? chunk : this.decoder.write(chunk);
    if (this.first && text.length > 0) {
      this.first = false;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    if (this.skipLeadingLf && text.length > 0) {
      this.skipLeadingLf = false;
      if (text.charCodeAt(0) === LF) text = text.slice(1);
    }
    return this.drainLines(text);
  }

  /** Ends the input. Per the standard, an event not closed by a blank line is dropped. */
  end(): SseItem[] {
    const rest = this.decoder.end();
    const items = rest ? this.push(rest) : [];
    if (this.partial.length > 0) {
      const line = this.partial.join("");
      this.partial = [];
      this.partialLength = 0;
      const item = this.processLine(line);
      if (item) items.push(item);
    }
    return items;
  }

  /**
   * Splits the text at every line end (LF, CR, or CRLF). The next LF and CR
   * are found with indexOf, each searched again only once it has been passed.
   */
  private drainLines(text: string): SseItem[] {
    const items: SseItem[] = [];
    const length = text.length;
    let start = 0;
    let lf = text.indexOf("\n");
    let cr = text.indexOf("\r");
    for (;;) {
      if (lf !== -1 && lf < start) lf = text.indexOf("\n", start);
      if (cr !== -1 && cr < start) cr = text.indexOf("\r", start);
      let end: number;
      if (cr !== -1 && (lf === -1 || cr < lf)) end = cr;
      else if (lf !== -1) end = lf;
      else break;
      let line = text.slice(start, end);
      if (this.partial.length > 0) {
        this.partial.push(line);
        line = this.partial.join("");
        this.partial = [];
        this.partialLength = 0;
      }
      start = end + 1;
      if (end === cr) {
        if (start < length) {
          if (text.charCodeAt(start) === LF) start++;
        } else {
          // A CR at the end of the input so far: an LF may follow in the next chunk.
          this.skipLeadingLf = true;
        }
      }
      const item = this.processLine(line);
      if (item) items.push(item);
    }
    if (start < length) {
      const rest = start === 0 ? text : text.slice(start);
      this.partial.push(rest);
      this.partialLength += rest.length;
      if (this.partialLength > this.maxEventLength) throw new UpstreamBodyTooLarge(this.maxEventLength);
    }
    return items;
  }

  private processLine(line: string): SseItem | undefined {
    if (line === "") return this.dispatch();
    if (line.startsWith("data:")) {
      // The common line, read without splitting it at its colon.
      this.addData(line.charCodeAt(5) === 32 ? line.slice(6) : line.slice(5));
      return undefined;
    }
    if (line[0] === ":") return { kind: "comment", text: line.slice(1).replace(/^ /, "") };
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value[0] === " ") value = value.slice(1);
    switch (field) {
      case "data":
        this.addData(value);
        break;
      case "event":
        this.eventName = value;
        break;
      case "id":
        if (!value.includes("\0")) this.lastId = value;
        break;
      default:
        break; // `retry` and unknown fields do not concern a proxy
    }
    return undefined;
  }

  private addData(value: string): void {
    this.data = this.data === undefined ? value : `${this.data}\n${value}`;
    if (this.data.length > this.maxEventLength) throw new UpstreamBodyTooLarge(this.maxEventLength);
  }

  private dispatch(): SseItem | undefined {
    const data = this.data;
    const eventName = this.eventName;
    this.data = undefined;
    this.eventName = "";
    return data === undefined ? undefined : { kind: "event", event: { event: eventName || "message", data, id: this.lastId } };
  }
}
