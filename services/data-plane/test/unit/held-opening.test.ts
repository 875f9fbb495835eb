// A native stream's opening, held until its first content, is capped: an upstream that pings
// without end cannot grow it past UPSTREAM_MAX_BODY_BYTES (docs/resilience.md, "Size limits").
import { describe, expect, it } from "vitest";
import { MessagesNativeStreamRenderer } from "../../src/dialects/anthropic-messages/native-stream-renderer";
import { HeldOpening } from "../../src/dialects/held-opening";
import { UpstreamBodyTooLarge } from "../../src/upstream/body-limit";

describe("HeldOpening", () => {
  it("holds frames up to its limit and releases them once", () => {
    const opening = new HeldOpening(8);
    opening.hold("abcd");
    opening.hold("efgh");
    expect(opening.release()).toBe("abcdefgh");
    expect(opening.release()).toBe("");
  });

  it("throws once what it holds passes the limit", () => {
    const opening = new HeldOpening(8);
    opening.hold("abcd");
    expect(() => opening.hold("efghi")).toThrow(UpstreamBodyTooLarge);
  });

  it("caps a native Messages stream that pings without end before its first content", () => {
    const renderer = new MessagesNativeStreamRenderer(1024);
    const ping = { event: "ping", data: '{"type":"ping"}', id: undefined };
    expect(() => {
      for (let i = 0; i < 1000; i++) renderer.frames(ping, []);
    }).toThrow(UpstreamBodyTooLarge);
  });
});
