// Which events of an OpenAI-compatible chat stream go out as bytes
// (engine/byte-event-decoder.ts): data-only chunks without usage or error,
// read by the chat scan, their produced text counted as the meter counts the
// translator's chunk (the chunk itself). [DONE], usage, errors and anything
// the scan does not read with certainty are parsed.
import { bytesAre } from "../../dialects/json-scan";
import { ChatJsonScan, DELTA } from "../../dialects/openai/chat-json-scan";
import type { EventBytes } from "../provider-adapter";

const DONE = Buffer.from("[DONE]");

export class ChatEventBytes implements EventBytes {
  private readonly scan = new ChatJsonScan();

  relayable(bytes: Buffer, nameStart: number, _nameEnd: number, dataStart: number, dataEnd: number): number {
    if (nameStart !== -1 || bytesAre(bytes, dataStart, dataEnd, DONE)) return -1;
    const { scan } = this;
    if (!scan.scan(bytes, dataStart, dataEnd, DELTA)) return -1;
    return scan.usageStart === -1 || scan.usageNull ? scan.producedBytes : -1;
  }
}
