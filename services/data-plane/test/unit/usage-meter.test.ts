// The one usage meter: reported usage wins, as its codec read it into the
// record; without it, the same answer is estimated alike whether it came whole
// or streamed.
import { describe, expect, it } from "vitest";
import { estimateTokens } from "../../src/billing/hold-estimate";
import { producedText, UsageMeter } from "../../src/engine/usage-meter";

const message = {
  role: "assistant",
  content: "Paris is the capital.",
  refusal: null,
  tool_calls: [{ id: "call_1", type: "function", function: { name: "lookup", arguments: '{"city":"Paris"}' } }],
  images: [{ type: "image_url", image_url: { url: "data:image/png;base64,AAAA" } }],
};

describe("UsageMeter", () => {
  it("bills the record its codec read, not the shared usage object, with the images delivered", () => {
    const meter = new UsageMeter();
    const usage = { prompt_tokens: 10, completion_tokens: 4, completion_tokens_details: { image_tokens: 2 } };
    const record = { inputTokens: 10, cacheWrite1hTokens: 6, outputTokens: 4, imageOutputTokens: 2 };
    meter.report({ usage }, record);
    meter.deliveredAnswer({ choices: [{ message }] });
    expect(meter.tokens("ignored")).toEqual({ ...record, images: 1 });
    expect(meter.usage).toBe(usage);
  });

  it("estimates when the usage it was given could not be read into a record", () => {
    const meter = new UsageMeter();
    meter.report({ usage: { prompt_tokens: 10 } }, { inputTokens: 10, outputTokens: 0 });
    expect(meter.report({ usage: { completion_tokens: 3 } }, undefined)).toBe(true);
    expect(meter.tokens("{}")).toEqual({ inputTokens: estimateTokens("{}"), outputTokens: 0, images: 0 });
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
    expect(meter.report({ usage: null }, undefined)).toBe(false);
    expect(meter.report({ usage: { prompt_tokens: 1 } }, { inputTokens: 1, outputTokens: 0 })).toBe(true);
    meter.report({ usage: { prompt_tokens: 5, completion_tokens: 2 } }, { inputTokens: 5, outputTokens: 2 });
    expect(meter.report({ usage: undefined }, undefined)).toBe(false);
    expect(meter.tokens("")).toEqual({ inputTokens: 5, outputTokens: 2, images: 0 });
  });

  it("knows when the first produced text or image went out", () => {
    const meter = new UsageMeter();
    meter.deliveredChunk({ choices: [{ delta: { role: "assistant" } }] });
    expect(meter.producedAny).toBe(false);
    meter.deliveredChunk({ choices: [{ delta: { content: "a" } }] });
    expect(meter.producedAny).toBe(true);
  });
});

describe("producedText", () => {
  it("collects every produced string but roles, types, ids, indexes and images", () => {
    expect(producedText({ role: "assistant", reasoning: "think", audio: { id: "a1", transcript: "said" }, index: 0 })).toBe("thinksaid");
  });
});
