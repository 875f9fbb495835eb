// The usage answer's figures beyond its rows: each row's tokens by type (from the cost split, each token
// in one type) and the totals per day, per model and of the range, summed exactly.
import { describe, expect, it } from "vitest";
import { presentUsage } from "../../src/admin/presenters";
import type { UsageRow } from "../../src/billing/ledger-service";

const part = (units: number, costNano: bigint) => ({ units, costNano });

const rows: UsageRow[] = [
  // 1,000 prompt tokens: 600 read from the cache, 250 written (5 minutes), 100 written (an hour); 300 out, 120 reasoning.
  {
    day: "2026-11-24",
    model: "anthropic/claude-sonnet-4",
    requests: 2,
    inputTokens: 1000,
    outputTokens: 300,
    costNano: 1_000_000_001n,
    components: {
      input: part(50, 1n),
      cached_input: part(600, 2n),
      cache_write_5m: part(250, 3n),
      cache_write_1h: part(100, 4n),
      output: part(180, 5n),
      reasoning: part(120, 6n),
    },
  },
  // A debit from before the split: every token plain input or output.
  { day: "2026-11-24", model: "openai/gpt-4.1", requests: 1, inputTokens: 40, outputTokens: 7, costNano: 3n, components: {} },
  { day: "2026-11-25", model: "openai/gpt-4.1", requests: 5, inputTokens: 10, outputTokens: 20, costNano: 1_000_000_001n, components: {} },
];

describe("presentUsage", () => {
  const usage = presentUsage({ from: "2026-11-01", to: "2026-11-25", rows });

  it("splits each row's tokens by type, each token in one type", () => {
    expect(usage.data.map((row) => row.tokens)).toEqual([
      { input: 50, cached_input: 600, cache_write: 350, output: 180, reasoning: 120 },
      { input: 40, cached_input: 0, cache_write: 0, output: 7, reasoning: 0 },
      { input: 10, cached_input: 0, cache_write: 0, output: 20, reasoning: 0 },
    ]);
    for (const row of usage.data)
      expect(Object.values(row.tokens).reduce((sum, n) => sum + n, 0)).toBe(row.input_tokens + row.output_tokens);
  });

  it("totals each day with requests, in order", () => {
    expect(usage.by_day).toEqual([
      {
        day: "2026-11-24",
        requests: 3,
        input_tokens: 1040,
        output_tokens: 307,
        tokens: { input: 90, cached_input: 600, cache_write: 350, output: 187, reasoning: 120 },
        cached_share: 0.5769, // 600 of 1,040
        cost: { nano: "1000000004", usd: "1.000000004" },
      },
      {
        day: "2026-11-25",
        requests: 5,
        input_tokens: 10,
        output_tokens: 20,
        tokens: { input: 10, cached_input: 0, cache_write: 0, output: 20, reasoning: 0 },
        cached_share: 0,
        cost: { nano: "1000000001", usd: "1.000000001" },
      },
    ]);
  });

  it("totals each model, the most spent first, and the range exactly", () => {
    expect(usage.by_model.map((m) => [m.model, m.requests, m.cost.nano])).toEqual([
      ["openai/gpt-4.1", 6, "1000000004"],
      ["anthropic/claude-sonnet-4", 2, "1000000001"],
    ]);
    expect(usage.total).toEqual({
      requests: 8,
      input_tokens: 1050,
      output_tokens: 327,
      tokens: { input: 100, cached_input: 600, cache_write: 350, output: 207, reasoning: 120 },
      cached_share: 0.5714, // 600 of 1,050
      cost: { nano: "2000000005", usd: "2.000000005" },
    });
  });

  it("breaks a tie in spend by the model's name; an empty range has zero totals", () => {
    const tie = presentUsage({ from: "2026-11-25", to: "2026-11-25", rows: [rows[2]!, { ...rows[2]!, model: "a/first" }] });
    expect(tie.by_model.map((m) => m.model)).toEqual(["a/first", "openai/gpt-4.1"]);
    const none = presentUsage({ from: "2026-11-25", to: "2026-11-25", rows: [] });
    expect(none).toMatchObject({ data: [], by_day: [], by_model: [], total: { requests: 0, cost: { nano: "0", usd: "0.00" } } });
  });
});
