// AWS's binary event stream read as events (upstream/aws-event-stream.ts), against a real Bedrock body:
// every message, however the bytes are split; exception messages named for their type; a corrupt CRC
// and an oversized message refused.
import { describe, expect, it } from "vitest";
import { AwsEventStreamParser, EventStreamFrameError } from "../../src/upstream/aws-event-stream";
import { UpstreamBodyTooLarge } from "../../src/upstream/body-limit";
import type { SseItem } from "../../src/upstream/sse-parser";
import { fixtures } from "../support/fixture";

const bedrock = fixtures("bedrock");
const converse = bedrock.bytes("bedrock.converse-stream.bin");

function parseIn(bytes: Uint8Array, pieces: number[]): SseItem[] {
  const parser = new AwsEventStreamParser();
  const items: SseItem[] = [];
  let at = 0;
  for (const size of pieces) {
    items.push(...parser.push(bytes.subarray(at, at + size)));
    at += size;
  }
  items.push(...parser.push(bytes.subarray(at)), ...parser.end());
  return items;
}

const events = (items: SseItem[]) => items.map((item) => (item.kind === "event" ? item.event : undefined));

describe("AwsEventStreamParser", () => {
  it("reads the six messages of a recorded ConverseStream body, named by :event-type, their payload as text", () => {
    const read = events(parseIn(converse, []));
    expect(read.map((event) => event!.event)).toEqual([
      "messageStart",
      "contentBlockDelta",
      "contentBlockDelta",
      "contentBlockStop",
      "messageStop",
      "metadata",
    ]);
    expect(JSON.parse(read[1]!.data)).toMatchObject({ contentBlockIndex: 0, delta: { text: "OK" } });
    expect(JSON.parse(read[5]!.data)).toHaveProperty("usage");
  });

  it("gives the same events whatever the bytes' split: one byte at a time, or a message and a half", () => {
    const whole = events(parseIn(converse, []));
    expect(
      events(
        parseIn(
          converse,
          Array.from({ length: converse.length }, () => 1),
        ),
      ),
    ).toEqual(whole);
    expect(events(parseIn(converse, [270, 3, 500]))).toEqual(whole);
  });

  it("names an exception message exception:<type>, its payload kept", () => {
    const [item] = parseIn(bedrock.bytes("bedrock.converse-stream.exception.modelStreamError.bin"), []);
    expect(item).toMatchObject({ kind: "event", event: { event: "exception:modelStreamErrorException" } });
    expect(JSON.parse((item as { event: { data: string } }).event.data)).toMatchObject({ originalStatusCode: 500 });
  });

  it("refuses a message whose CRC does not match, and one longer than its limit before holding it", () => {
    const corrupt = Uint8Array.from(converse);
    corrupt[100] = corrupt[100]! ^ 0xff;
    expect(() => parseIn(corrupt, [])).toThrow(EventStreamFrameError);
    expect(() => new AwsEventStreamParser(100).push(converse.subarray(0, 8))).toThrow(UpstreamBodyTooLarge);
  });

  it("a bad message after good ones in the same chunk: the good ones first, the failure at the next read", () => {
    const corrupt = Uint8Array.from(converse);
    corrupt[converse.length - 10] = corrupt[converse.length - 10]! ^ 0xff; // inside the last message (metadata)
    const parser = new AwsEventStreamParser();
    expect(parser.push(corrupt)).toHaveLength(5);
    expect(() => parser.end()).toThrow(EventStreamFrameError);
  });

  it("drops a message cut short by the body's end", () => {
    const parser = new AwsEventStreamParser();
    expect(parser.push(converse.subarray(0, 50))).toEqual([]);
    expect(parser.end()).toEqual([]);
  });
});
