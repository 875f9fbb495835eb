// One incremental Server-Sent Events parser for every provider, following the
// WHATWG event-stream rules: lines end in CRLF, LF or CR; `data` lines of one
// event are joined with "\n"; lines starting with ":" are comments; unknown
// fields are ignored; input may be split at any byte (UTF-8 sequences and
// CRLF pairs included).

export interface SseEvent {
  /** The `event:` field, "message" when absent. */
  event: string;
  data: string;
  id: string | undefined;
}

export type SseItem = { kind: "event"; event: SseEvent } | { kind: "comment"; text: string };

export class SseParser {
  // ignoreBOM: the decoder keeps a BOM, so the parser strips exactly one, for bytes and text alike.
  private readonly decoder = new TextDecoder("utf-8", { ignoreBOM: true });
  /** Pieces of the current, unfinished line (joined once the line ends: linear in its size). */
  private partial: string[] = [];
  private skipLeadingLf = false;
  private first = true;
  private dataLines: string[] = [];
  private eventName = "";
  private lastId: string | undefined;

  /** Feeds bytes (or text) and returns the complete items they finish. */
  push(chunk: Uint8Array | string): SseItem[] {
    let text = typeof chunk === "string" ? chunk : this.decoder.decode(chunk, { stream: true });
    if (this.first && text.length > 0) {
      this.first = false;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    if (this.skipLeadingLf && text.length > 0) {
      this.skipLeadingLf = false;
      if (text[0] === "\n") text = text.slice(1);
    }
    return this.drainLines(text);
  }

  /** Ends the input. Per the standard, an event not closed by a blank line is dropped. */
  end(): SseItem[] {
    const rest = this.decoder.decode();
    const items = rest ? this.push(rest) : [];
    if (this.partial.length > 0) {
      const line = this.partial.join("");
      this.partial = [];
      const item = this.processLine(line);
      if (item) items.push(item);
    }
    return items;
  }

  private drainLines(text: string): SseItem[] {
    const items: SseItem[] = [];
    let start = 0;
    for (let index = 0; index < text.length; index++) {
      const char = text[index];
      if (char !== "\n" && char !== "\r") continue;
      let line = text.slice(start, index);
      if (this.partial.length > 0) {
        this.partial.push(line);
        line = this.partial.join("");
        this.partial = [];
      }
      if (char === "\r") {
        if (index + 1 < text.length) {
          if (text[index + 1] === "\n") index++;
        } else {
          // A CR at the end of the input so far: an LF may follow in the next chunk.
          this.skipLeadingLf = true;
        }
      }
      start = index + 1;
      const item = this.processLine(line);
      if (item) items.push(item);
    }
    if (start < text.length) this.partial.push(text.slice(start));
    return items;
  }

  private processLine(line: string): SseItem | undefined {
    if (line === "") return this.dispatch();
    if (line[0] === ":") return { kind: "comment", text: line.slice(1).replace(/^ /, "") };
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value[0] === " ") value = value.slice(1);
    switch (field) {
      case "data":
        this.dataLines.push(value);
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

  private dispatch(): SseItem | undefined {
    const hadData = this.dataLines.length > 0;
    const event: SseEvent = { event: this.eventName || "message", data: this.dataLines.join("\n"), id: this.lastId };
    this.dataLines = [];
    this.eventName = "";
    return hadData ? { kind: "event", event } : undefined;
  }
}
