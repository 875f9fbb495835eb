// A path's price as a flat sheet (src/catalogue/price-sheet.ts): read from a catalogue price,
// written back in the file's order, compared key by key.
import { describe, expect, it } from "vitest";
import type { CataloguePriceEntry } from "../../src/catalogue/catalogue-file";
import { entryFields, putLongContext, sheetOfEntry, valuesAgree, withinHalfPercent } from "../../src/catalogue/price-sheet";

const M = 1_000_000_000n;

describe("price sheets", () => {
  const entry: CataloguePriceEntry = {
    input_per_m: "3.00",
    output_per_m: "15.00",
    cached_input_per_m: "0.30",
    cache_write_5m_per_m: "3.75",
    per_web_search: "0.01",
    long_context: { above_input_tokens: 200000, input_per_m: "6.00", output_per_m: "22.50" },
    service_tiers: { priority: { input_per_m: "5.00" }, flex: { output_per_m: "7.50" } },
    verified: false,
  };

  it("flattens every component of a catalogue price to integer keys", () => {
    expect(Object.fromEntries(sheetOfEntry(entry))).toEqual({
      input: 3n * M,
      output: 15n * M,
      cached_input: 300_000_000n,
      cache_write_5m: 3_750_000_000n,
      web_search: 10_000_000n,
      "long_context.above_input_tokens": 200_000n,
      "long_context.input": 6n * M,
      "long_context.output": 22_500_000_000n,
      "service_tiers.priority.input": 5n * M,
      "service_tiers.flex.output": 7_500_000_000n,
    });
  });

  it("writes a sheet back as the file's fields, in the file's order whatever the order of the keys", () => {
    const shuffled = new Map([...sheetOfEntry(entry)].reverse());
    const { verified: _, ...fields } = entry;
    expect(entryFields(shuffled)).toEqual(fields);
    expect(Object.keys(entryFields(shuffled))).toEqual([
      "input_per_m",
      "output_per_m",
      "cached_input_per_m",
      "cache_write_5m_per_m",
      "per_web_search",
      "long_context",
      "service_tiers",
    ]);
  });

  it("agrees within 0.5% on money and exactly on a threshold", () => {
    expect(withinHalfPercent(1000n, 1005n)).toBe(true);
    expect(withinHalfPercent(1000n, 1006n)).toBe(false);
    expect(valuesAgree("cached_input", 1000n, 1004n)).toBe(true);
    expect(valuesAgree("long_context.above_input_tokens", 200_000n, 200_001n)).toBe(false);
  });

  it("keeps one long-context tier: the lowest threshold, the dearest rate of each kind", () => {
    const sheet = new Map<string, bigint>();
    putLongContext(sheet, [
      { aboveInputTokens: 128_000n, rates: new Map([["input", 3n]]) },
      {
        aboveInputTokens: 32_000n,
        rates: new Map([
          ["input", 2n],
          ["output", 5n],
        ]),
      },
      { aboveInputTokens: 1_000n, rates: new Map() }, // no rate: not a tier
    ]);
    expect(Object.fromEntries(sheet)).toEqual({
      "long_context.above_input_tokens": 32_000n,
      "long_context.input": 3n,
      "long_context.output": 5n,
    });
  });
});
