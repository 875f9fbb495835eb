// The one usage meter: reported usage wins; without it, the same answer is
// estimated alike whether it came whole or streamed.
import { describe, expect, it } from "vitest";
import { estimateTokens } from "../../src/billing/hold-estimate";
import { producedText, readUsage, UsageMeter } from "../../src/engine/usage-meter";

const message = {
  role: "assistant",
  content: "Paris is the capital.",
  refusal: null,
  tool_calls: [{ id: "call_1", type: "function", function: { name: "lookup", arguments: '{"city":"Paris"}' } }],
  images: [{ type: "image_url", image_url: { url: "data:image/png;base64,AAAA" } }],
};

describe("UsageMeter", () => {
  it("bills what the upstream reported, with the images delivered", () => {
    const meter = new UsageMeter();
    meter.report({ usage: { prompt_tokens: 10, completion_tokens: 4, completion_tokens_details: { image_tokens: 2 } } });
    meter.deliveredAnswer({ choices: [{ message }] });
    expect(meter.tokens("ignored")).toEqual({ inputTokens: 10, outputTokens: 4, imageOutputTokens: 2, images: 1 });
  });

  it("estimates a whole answer and the same answer streamed alike: produced text only, images apart", () => {
    const whole = new UsageMeter();
    whole.deliveredAnswer({ choices: [{ message }] });
    const streamed = new UsageMeter();
    for (const delta of [
      { role: "assistant", content: "Paris is " },
      { content: "the capital." },
      { tool_calls: [{ index: 0, id: "call_1", type: "function", function: { name: "lookup", arguments: '{"city":' } }] },
      { tool_calls: [{ index: 0, function: { arguments: '"Paris"}' } }] },
      { images: message.images },
    ]) {
      streamed.deliveredChunk({ choices: [{ index: 0, delta }] });
    }
    const body = '{"model":"m","messages":[]}';
    expect(whole.tokens(body)).toEqual(streamed.tokens(body));
    expect(whole.tokens(body)).toEqual({
      inputTokens: estimateTokens(body),
      outputTokens: estimateTokens('Paris is the capital.lookup{"city":"Paris"}'),
      images: 1,
    });
  });

  it("takes the latest usage reported, and says whether a value carried one", () => {
    const meter = new UsageMeter();
    expect(meter.report({ usage: null })).toBe(false);
    expect(meter.report({ usage: { prompt_tokens: 1 } })).toBe(true);
    meter.report({ usage: { prompt_tokens: 5, completion_tokens: 2 } });
    expect(meter.tokens("")).toMatchObject({ inputTokens: 5, outputTokens: 2 });
  });

  it("knows when the first produced text or image went out", () => {
    const meter = new UsageMeter();
    meter.deliveredChunk({ choices: [{ delta: { role: "assistant" } }] });
    expect(meter.producedAny).toBe(false);
    meter.deliveredChunk({ choices: [{ delta: { content: "a" } }] });
    expect(meter.producedAny).toBe(true);
  });
});

describe("readUsage and producedText", () => {
  it("reads OpenAI usage, and nothing without prompt tokens", () => {
    expect(readUsage({ prompt_tokens: 3.4, completion_tokens: -1 })).toEqual({ inputTokens: 3, outputTokens: 0 });
    expect(readUsage({ completion_tokens: 3 })).toBeUndefined();
    expect(readUsage("nope")).toBeUndefined();
  });

  it("collects every produced string but roles, types, ids, indexes and images", () => {
    expect(producedText({ role: "assistant", reasoning: "think", audio: { id: "a1", transcript: "said" }, index: 0 })).toBe("thinksaid");
  });
});
