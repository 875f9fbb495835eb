import { describe, expect, it } from "vitest";
import type { Price } from "../../src/catalogue/catalogue-snapshot";
import { pathPrice } from "../support/path-price";
import { canPrice, costNano, usdNumber } from "../../src/billing/pricing";

const price = pathPrice;

describe("costNano", () => {
  it.each<[string, Partial<Price>, { inputTokens: number; outputTokens: number; images?: number }, bigint]>([
    ["exact token math", { inputNanoPerM: 400_000_000n, outputNanoPerM: 1_600_000_000n }, { inputTokens: 19, outputTokens: 10 }, 23_600n],
    ["1 token at 150_000_000/M", { inputNanoPerM: 150_000_000n, outputNanoPerM: 0n }, { inputTokens: 1, outputTokens: 0 }, 150n],
    [
      "1 token at 37_500_000/M rounds 37.5 up",
      { inputNanoPerM: 37_500_000n, outputNanoPerM: 0n },
      { inputTokens: 1, outputTokens: 0 },
      38n,
    ],
    ["1 token at 1/M rounds up to 1", { inputNanoPerM: 1n, outputNanoPerM: 1n }, { inputTokens: 1, outputTokens: 0 }, 1n],
    // Rounded once over the sum: 0.5 + 0.5 = 1, not ceil(0.5) + ceil(0.5) = 2.
    ["rounds once over input and output", { inputNanoPerM: 500_000n, outputNanoPerM: 500_000n }, { inputTokens: 1, outputTokens: 1 }, 1n],
    ["zero usage costs nothing", { inputNanoPerM: 400_000_000n, outputNanoPerM: 1_600_000_000n }, { inputTokens: 0, outputTokens: 0 }, 0n],
    [
      "a whole million tokens",
      { inputNanoPerM: 2_500_000_000n, outputNanoPerM: 10_000_000_000n },
      { inputTokens: 1_000_000, outputTokens: 1_000_000 },
      12_500_000_000n,
    ],
    ["one nano over a multiple rounds up", { inputNanoPerM: 1_000_001n, outputNanoPerM: 0n }, { inputTokens: 1, outputTokens: 0 }, 2n],
    [
      "request price added",
      { inputNanoPerM: 400_000_000n, outputNanoPerM: 1_600_000_000n, requestNano: 5_000_000n },
      { inputTokens: 19, outputTokens: 10 },
      5_023_600n,
    ],
    [
      "image price per image",
      { inputNanoPerM: 400_000_000n, outputNanoPerM: 0n, imageNano: 1_000n },
      { inputTokens: 19, outputTokens: 0, images: 3 },
      7_600n + 3_000n,
    ],
    [
      "image and request prices are not rounded with tokens",
      { inputNanoPerM: 37_500_000n, requestNano: 7n, imageNano: 11n },
      { inputTokens: 1, outputTokens: 0, images: 2 },
      38n + 7n + 22n,
    ],
    ["null input price counts as 0", { outputNanoPerM: 1_600_000_000n }, { inputTokens: 1000, outputTokens: 10 }, 16_000n],
    ["null output price counts as 0", { inputNanoPerM: 400_000_000n }, { inputTokens: 19, outputTokens: 1000 }, 7_600n],
    ["all null prices cost 0", {}, { inputTokens: 1000, outputTokens: 1000, images: 4 }, 0n],
    [
      "large usage stays exact",
      { inputNanoPerM: 15_000_000_000n, outputNanoPerM: 75_000_000_000n },
      { inputTokens: 2_000_000_000, outputTokens: 123_456_789 },
      30_000_000_000_000n + 9_259_259_175_000n,
    ],
  ])("%s", (_name, fields, usage, expected) => {
    expect(costNano(price(fields), usage)).toBe(expected);
  });
});

describe("canPrice", () => {
  it.each<[string, Partial<Price>, "chat" | "embeddings", boolean]>([
    ["chat with both prices", { inputNanoPerM: 1n, outputNanoPerM: 1n }, "chat", true],
    ["chat with zero prices", { inputNanoPerM: 0n, outputNanoPerM: 0n }, "chat", true],
    ["chat without output price", { inputNanoPerM: 1n }, "chat", false],
    ["chat without input price", { outputNanoPerM: 1n }, "chat", false],
    ["embeddings with input price only", { inputNanoPerM: 1n }, "embeddings", true],
    ["embeddings without input price", { outputNanoPerM: 1n }, "embeddings", false],
    ["chat with request price only", { requestNano: 1n }, "chat", false],
  ])("%s -> %s", (_name, fields, endpoint, expected) => {
    expect(canPrice(price(fields), endpoint)).toBe(expected);
  });
});

describe("usdNumber", () => {
  it.each<[bigint, number]>([
    [0n, 0],
    [1n, 1e-9],
    [23_600n, 0.0000236],
    [1_000_000_000n, 1],
    [12_340_000_000n, 12.34],
  ])("%s nano -> %s USD", (nano, usd) => {
    expect(usdNumber(nano)).toBe(usd);
  });

  const values = [
    1n,
    7n,
    10n,
    999n,
    23_600n,
    999_999_999n,
    1_000_000_001n,
    123_456_789_012n,
    987_654_321_987n,
    999_999_999_999_999n,
    10n ** 15n,
  ];
  it.each(values)("%s nano round-trips through *1e9", (nano) => {
    expect(Math.round(usdNumber(nano) * 1e9)).toBe(Number(nano));
  });

  it.each(values)("%s nano survives JSON", (nano) => {
    expect(JSON.parse(JSON.stringify(usdNumber(nano)))).toBe(usdNumber(nano));
  });

  it("round-trips every nano amount in a sweep up to 10^15 (USD 1M)", () => {
    let nano = 1n;
    const failures: bigint[] = [];
    while (nano <= 10n ** 15n) {
      for (const candidate of [nano - 1n, nano, nano + 1n, nano * 3n + 7n]) {
        if (candidate > 0n && Math.round(usdNumber(candidate) * 1e9) !== Number(candidate)) failures.push(candidate);
      }
      nano = nano * 7n + 3n;
    }
    expect(failures).toEqual([]);
  });

  // BUG (doc contract): pricing.ts says usdNumber is "Exact for any amount below 2^53 nano-USD",
  // but above about 2^52 nano (USD 4.5M) the double spacing exceeds 1e-9 and neighbours collide.
  it("round-trips every amount up to the documented bound of 10^15 nano-USD", () => {
    for (const nano of [10n ** 15n, 10n ** 15n - 1n, 999_999_999_999_937n, 123_456_789_012_345n]) {
      expect(BigInt(Math.round(usdNumber(nano) * 1e9))).toBe(nano);
    }
  });
});
