// The byte framing of a same-dialect stream (engine/byte-event-decoder.ts) holds an event that arrives
// over many reads as those reads, joined once when it ends: a 16 MiB event in 64 KiB reads once took
// seconds, each read copying all before it (large-upstream-answer.test.ts met the keep-alive's 10 s).
import { afterEach, describe, expect, it, vi } from "vitest";
import { ByteEventDecoder } from "../../src/engine/byte-event-decoder";
import type { EventBytes, StreamTranslator } from "../../src/providers/provider-adapter";

const translated: string[] = [];
const translator = {
  push: (event: { data: string }) => {
    translated.push(event.data);
    return [];
  },
  end: () => [],
} as unknown as StreamTranslator;
/** Relays every event, counting nothing. */
const relayAll: EventBytes = { relayable: () => 0 };

/** `text` cut into reads of `size` bytes. */
const reads = (text: string, size: number) => {
  const bytes = Buffer.from(text);
  const pieces: Buffer[] = [];
  for (let at = 0; at < bytes.length; at += size) pieces.push(bytes.subarray(at, at + size));
  return pieces;
};

describe("ByteEventDecoder", () => {
  afterEach(() => {
    vi.restoreAllMocks();
    translated.length = 0;
  });

  it("joins the reads of a long event once, when it ends, and relays it whole", () => {
    const data = `{"pad":"${"x".repeat(300_000)}"}`;
    const decoder = new ByteEventDecoder(translator, 1_000_000, relayAll);
    const concat = vi.spyOn(Buffer, "concat");
    const relayed = reads(`data: ${data}\n\n`, 1024).flatMap((read) => decoder.push(read));
    expect(concat).toHaveBeenCalledTimes(1); // 294 reads
    expect(relayed.map((group) => group.relay?.data.toString())).toEqual([data]);
  });

  it("finds an event's end split between two reads, and an event that outgrows the limit goes to the parser", () => {
    const decoder = new ByteEventDecoder(translator, 100, relayAll);
    const split = [...reads("data: {}\n", 4), Buffer.from("\ndata: {}\n\n")].flatMap((read) => decoder.push(read));
    expect(split.map((group) => group.relay?.data.toString())).toEqual(["{}", "{}"]);
    // Past the limit, the parser takes over and refuses the event (its error), never holding more than the limit.
    const long = reads(`data: "${"y".repeat(500)}"\n\n`, 10);
    expect(() => long.flatMap((read) => decoder.push(read))).toThrow();
  });
});
