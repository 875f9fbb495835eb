// The stream's last JSON event carrying a field (the routing headers' final values, when a stream's
// headers went out before its outcome was known), in each dialect's framing.
import { describe, expect, it } from "vitest";
import { withFieldInLastEvent } from "../../src/dialects/sse-frames";

const service = { "x-service-model": "a/b", "x-service-reason": "a/b via openai, 3 attempts" };

describe("withFieldInLastEvent", () => {
  it("OpenAI chat: the usage chunk before [DONE]", () => {
    const frames = 'data: {"choices":[],"usage":{"cost":0}}\n\ndata: [DONE]\n\n';
    expect(withFieldInLastEvent(frames, "service", service)).toBe(
      `data: ${JSON.stringify({ choices: [], usage: { cost: 0 }, service })}\n\ndata: [DONE]\n\n`,
    );
  });

  it("OpenAI chat: the error event that ends a stream", () => {
    const frames = 'data: {"error":{"type":"upstream_error","code":503,"message":"m"}}\n\n';
    expect(JSON.parse(withFieldInLastEvent(frames, "service", service).slice(6))).toEqual({
      error: { type: "upstream_error", code: 503, message: "m" },
      service,
    });
  });

  it("named events (Messages, Responses): the last one, its name kept", () => {
    const frames = 'event: message_delta\ndata: {"type":"message_delta"}\n\nevent: message_stop\ndata: {"type":"message_stop"}\n\n';
    expect(withFieldInLastEvent(frames, "service", service)).toBe(
      `event: message_delta\ndata: {"type":"message_delta"}\n\nevent: message_stop\ndata: ${JSON.stringify({ type: "message_stop", service })}\n\n`,
    );
  });

  it("unchanged when no event holds a JSON object", () => {
    expect(withFieldInLastEvent("data: [DONE]\n\n", "service", service)).toBe("data: [DONE]\n\n");
    expect(withFieldInLastEvent("", "service", service)).toBe("");
  });
});
