// Which events of a Responses stream go out as bytes
// (engine/byte-event-decoder.ts): the text deltas (output text, refusal,
// reasoning summary and reasoning text), the bulk of an answer. Their produced
// text is counted as the meter counts the reader's chunk
// (responses-stream-reader.ts: the event's `delta`, a string). The reader
// takes an event's `type` over its name: one whose `type` is another, or not
// a plain string, is parsed, as is every other event (the snapshots, tool
// calls, the terminal event with the usage, errors).
import { bytesAre, GIVE_UP, JsonScan, TOP } from "../../dialects/json-scan";
import type { EventBytes } from "../provider-adapter";

const TEXT_DELTAS = [
  "response.output_text.delta",
  "response.refusal.delta",
  "response.reasoning_summary_text.delta",
  "response.reasoning_text.delta",
].map((name) => Buffer.from(name));
const TYPE = Buffer.from("type");
const DELTA = Buffer.from("delta");

/** A text delta's data: its `type` (the event's name, or none) and its `delta` string's bytes. */
class TextDeltaScan extends JsonScan {
  private name: Buffer = DELTA;
  private typeSeen = false;
  /** UTF-8 bytes of `delta`; -1 when absent. */
  private delta = -1;

  read(bytes: Buffer, start: number, end: number, name: Buffer): number {
    this.name = name;
    this.typeSeen = false;
    this.delta = -1;
    if (!this.run(bytes, start, end)) return -1;
    return this.delta;
  }

  protected member(kind: number, keyStart: number, keyEnd: number): void {
    if (kind !== TOP) throw GIVE_UP;
    if (this.is(keyStart, keyEnd, TYPE)) {
      if (this.typeSeen) throw GIVE_UP;
      this.typeSeen = true;
      const start = this.plainString();
      if (!this.is(start, this.at - 1, this.name)) throw GIVE_UP;
    } else if (this.is(keyStart, keyEnd, DELTA)) {
      // A second `delta`, or one that is not a string, is the parser's.
      if (this.delta !== -1 || this.peek() !== 0x22) throw GIVE_UP;
      this.delta = this.textBytes();
    } else this.value(false);
  }
}

export class ResponsesEventBytes implements EventBytes {
  private readonly scan = new TextDeltaScan();

  relayable(bytes: Buffer, nameStart: number, nameEnd: number, dataStart: number, dataEnd: number): number {
    if (nameStart === -1) return -1;
    for (const name of TEXT_DELTAS) if (bytesAre(bytes, nameStart, nameEnd, name)) return this.scan.read(bytes, dataStart, dataEnd, name);
    return -1;
  }
}
