// The cost by component: every token kind at its rate, one rounding, unit parts apart.
// The worked examples are the issue's own (gpt-4.1-mini cached, claude-sonnet-4 cache reads and writes).
import { describe, expect, it } from "vitest";
import { costNano, costParts, ratesFor, type UsageRecord } from "../../src/billing/pricing";
import type { Price } from "../../src/catalogue/catalogue-snapshot";
import { pathPrice } from "../support/path-price";

const M = 1_000_000n;
/** USD per million tokens as a decimal string -> nano-USD per million, exactly. */
const usd = (text: string): bigint => {
  const [whole, fraction = ""] = text.split(".");
  return BigInt(whole!) * 1_000_000_000n + BigInt(fraction.padEnd(9, "0"));
};

const price = pathPrice;

const gpt41mini = price({ inputNanoPerM: usd("0.40"), outputNanoPerM: usd("1.60"), rates: { cachedInput: usd("0.10") } });
const sonnet4 = price({
  inputNanoPerM: usd("3"),
  outputNanoPerM: usd("15"),
  rates: { cachedInput: usd("0.30"), cacheWrite5m: usd("3.75"), cacheWrite1h: usd("6") },
  longContext: { aboveInputTokens: 200_000, rates: { input: usd("6"), output: usd("22.50"), cachedInput: usd("0.60") } },
});

const parts = (p: Price, usage: UsageRecord) =>
  Object.fromEntries(costParts(p, usage).parts.map((part) => [part.component, [part.units, part.nano]]));

describe("costParts: the issue's worked examples", () => {
  it("gpt-4.1-mini, 10,000 prompt tokens of which 9,000 cached, 100 out: $0.00146 (was $0.00416)", () => {
    const usage = { inputTokens: 10_000, cachedInputTokens: 9_000, outputTokens: 100 };
    expect(costNano(gpt41mini, usage)).toBe(1_460_000n);
    expect(parts(gpt41mini, usage)).toEqual({ input: [1_000, 400_000n], cached_input: [9_000, 900_000n], output: [100, 160_000n] });
    // Before: every prompt token at the input price.
    expect(costNano(gpt41mini, { inputTokens: 10_000, outputTokens: 100 })).toBe(4_160_000n);
  });

  it("claude-sonnet-4 reading 50,000 cached tokens (+1,000 new, 500 out): $0.0255 (was $0.1605)", () => {
    const usage = { inputTokens: 51_000, cachedInputTokens: 50_000, outputTokens: 500 };
    expect(costNano(sonnet4, usage)).toBe(25_500_000n);
    expect(costNano(sonnet4, { inputTokens: 51_000, outputTokens: 500 })).toBe(160_500_000n);
  });

  it("claude-sonnet-4 writing 50,000 tokens to the 5-minute cache: 125% of input, not 100%", () => {
    const written = costNano(sonnet4, { inputTokens: 50_000, cacheWrite5mTokens: 50_000, outputTokens: 0 });
    expect(written).toBe(187_500_000n);
    expect((costNano(sonnet4, { inputTokens: 50_000, outputTokens: 0 }) * 100n) / written).toBe(80n); // 20% under before
  });

  it("1-hour writes at 200% of input", () => {
    expect(costNano(sonnet4, { inputTokens: 50_000, cacheWrite1hTokens: 50_000, outputTokens: 0 })).toBe(300_000_000n);
  });
});

describe("costParts: fallbacks, tiers and rounding", () => {
  it("an unpriced kind is billed at the base rate; an unpriced 1-hour write at least at the 5-minute rate", () => {
    const base = price({ inputNanoPerM: usd("1"), outputNanoPerM: usd("4"), rates: { cacheWrite5m: usd("1.25") } });
    expect(
      parts(base, {
        inputTokens: 100,
        cachedInputTokens: 10,
        cacheWrite1hTokens: 20,
        audioInputTokens: 5,
        outputTokens: 50,
        reasoningTokens: 30,
      }),
    ).toEqual({
      input: [65, 65_000n],
      cached_input: [10, 10_000n],
      cache_write_1h: [20, 25_000n],
      audio_input: [5, 5_000n],
      output: [20, 80_000n],
      reasoning: [30, 120_000n],
    });
  });

  it("details beyond their total are cut to it", () => {
    expect(parts(gpt41mini, { inputTokens: 100, cachedInputTokens: 500, outputTokens: 0 })).toEqual({
      cached_input: [100, 10_000n],
    });
  });

  it("long-context rates apply above the threshold only (the whole prompt, cached included)", () => {
    expect(ratesFor(sonnet4, 200_000).input).toBe(usd("3"));
    expect(ratesFor(sonnet4, 200_001).input).toBe(usd("6"));
    const usage = { inputTokens: 200_001, cachedInputTokens: 150_000, outputTokens: 1_000 };
    expect(costNano(sonnet4, usage)).toBe((50_001n * usd("6") + 150_000n * usd("0.60") + 1_000n * usd("22.50") + M - 1n) / M);
    // A rate the long-context tier does not give scales with its side: input doubles, so do cache writes.
    expect(ratesFor(sonnet4, 300_000).cacheWrite5m).toBe(usd("7.50"));
    expect(ratesFor(sonnet4, 300_000).cacheWrite1h).toBe(usd("12"));
    expect(ratesFor(sonnet4, 300_000).reasoning).toBe(usd("22.50"));
  });

  it("a priced service tier applies when the answer reports it; an unpriced one bills the standard rates", () => {
    const tiered = price({
      inputNanoPerM: usd("1.25"),
      outputNanoPerM: usd("10"),
      rates: { cachedInput: usd("0.125") },
      serviceTiers: new Map([
        ["priority", { input: usd("2.50"), output: usd("20"), cachedInput: usd("0.25") }],
        ["flex", { input: usd("0.625"), output: usd("5") }],
      ]),
    });
    const usage = { inputTokens: 1_000, cachedInputTokens: 400, outputTokens: 100 };
    expect(costNano(tiered, { ...usage, serviceTier: "priority" })).toBe(600n * 2_500n + 400n * 250n + 100n * 20_000n);
    // flex gives no cached rate: it halves with flex's input, 0.125 -> 0.0625.
    expect(costNano(tiered, { ...usage, serviceTier: "flex" })).toBe((600n * usd("0.625") + 400n * usd("0.0625") + 100n * usd("5")) / M);
    expect(costNano(tiered, { ...usage, serviceTier: "default" })).toBe(costNano(tiered, usage));
  });

  it("a tier above the long-context threshold: each rate scaled as long context scales it (gpt-5.4 priority above 272k)", () => {
    const gpt54 = price({
      inputNanoPerM: usd("2.50"),
      outputNanoPerM: usd("15"),
      longContext: { aboveInputTokens: 272_000, rates: { input: usd("5"), output: usd("22.50") } },
      serviceTiers: new Map([["priority", { input: usd("5"), output: usd("30") }]]),
    });
    // litellm lists priority above 272k at $10 / $45.
    expect(ratesFor(gpt54, 300_000, "priority")).toMatchObject({ input: usd("10"), output: usd("45") });
    expect(ratesFor(gpt54, 272_000, "priority")).toMatchObject({ input: usd("5"), output: usd("30") });
    expect(ratesFor(gpt54, 300_000)).toMatchObject({ input: usd("5"), output: usd("22.50") });
  });

  it("rounds once: the parts, with the rounding part, add up to the total", () => {
    const odd = price({ inputNanoPerM: 333_333n, outputNanoPerM: 777_777n, rates: { cachedInput: 111_111n, reasoning: 999_999n } });
    const usage = { inputTokens: 7, cachedInputTokens: 3, outputTokens: 5, reasoningTokens: 2 };
    const { totalNano, parts: split } = costParts(odd, usage);
    const exact = 4n * 333_333n + 3n * 111_111n + 3n * 777_777n + 2n * 999_999n;
    expect(totalNano).toBe((exact + M - 1n) / M);
    expect(split.reduce((sum, part) => sum + part.nano, 0n)).toBe(totalNano);
    expect(split.find((part) => part.component === "rounding")?.nano).toBeGreaterThan(0n);
  });

  it("images priced per image are not billed as tokens; per-unit parts are added unrounded", () => {
    const imagePath = price({
      inputNanoPerM: usd("0.30"),
      outputNanoPerM: usd("2.50"),
      imageNano: 39_000_000n,
      requestNano: 5n,
      inputImageNano: 7n,
      webSearchNano: 10_000_000n,
    });
    const usage = { inputTokens: 10, outputTokens: 1_300, imageOutputTokens: 1_290, images: 1, inputImages: 2, webSearches: 1 };
    expect(parts(imagePath, usage)).toEqual({
      input: [10, 3_000n],
      output: [10, 25_000n],
      image: [1, 39_000_000n],
      input_image: [2, 14n],
      web_search: [1, 10_000_000n],
      request: [1, 5n],
    });
    // Without a per-image price the image tokens are output at the image-output rate (else output).
    const tokenPriced = price({ inputNanoPerM: usd("0.30"), outputNanoPerM: usd("2.50"), rates: { imageOutput: usd("30") } });
    expect(parts(tokenPriced, usage)).toMatchObject({ image_output: [1_290, 38_700_000n], output: [10, 25_000n] });
  });
});
