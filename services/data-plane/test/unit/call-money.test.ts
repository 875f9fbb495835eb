// The settle: the computed cost goes to the ledger, which debits at most the
// hold; what it leaves off is counted by model and access path
// (gateway_unbilled_usd_total, docs/money.md "The worst case").
import { Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import type { Price } from "../../src/catalogue/catalogue-snapshot";
import type { Call } from "../../src/engine/call";
import { type CallBilling, CallMoney, withWriteLifetime } from "../../src/engine/call-money";
import { UsdCounterFamily } from "../../src/metric-families";

const price: Price = {
  inputNanoPerM: 1_000_000n, // 1 nano-USD a token
  outputNanoPerM: 4_000_000n,
  imageNano: null,
  requestNano: null,
  verified: true,
  source: "test",
};

function settleAgainst(holdNano: bigint) {
  const unbilled = new UsdCounterFamily(new Registry(), "unbilled", "unbilled", ["model", "access_path"]);
  const billing: CallBilling = {
    reserve: async () => holdNano,
    checkSpend: async () => {},
    settle: async ({ amountNano }) => (amountNano < holdNano ? amountNano : holdNano),
    release: async () => {},
  };
  const money = new CallMoney(billing, { observe: () => {} }, unbilled, { settled: () => {} });
  const call = {
    requestId: "r",
    projectId: "p",
    target: { model: { id: "google/gemini-2.5-flash" }, path: { provider: "google", price } },
    upstream: { body: "{}" },
  } as unknown as Call;
  return { money, call, unbilled };
}

describe("CallMoney.settle", () => {
  it("counts what the hold left unbilled, by model and access path", async () => {
    const { money, call, unbilled } = settleAgainst(1_000n);
    const debited = await money.settle(call, { inputTokens: 100, outputTokens: 500, images: 0 }); // 100 + 2,000 nano
    expect(debited).toBe(1_000n);
    expect(call.debitedNano).toBe(1_000n);
    expect(unbilled.series("google/gemini-2.5-flash", "google").nano).toBe(1_100n);
    expect((await unbilled.get()).values[0]?.value).toBe(0.0000011); // shown in USD
  });

  it("counts nothing when the cost fits the hold", async () => {
    const { money, call, unbilled } = settleAgainst(10_000n);
    await money.settle(call, { inputTokens: 100, outputTokens: 500, images: 0 });
    expect(call.debitedNano).toBe(2_100n);
    expect((await unbilled.get()).values).toEqual([]);
  });
});

describe("withWriteLifetime", () => {
  const writes = { inputTokens: 1_000, cacheWrite5mTokens: 800, outputTokens: 10, images: 0 };
  const oneHour = JSON.stringify({
    messages: [{ role: "user", content: [{ type: "text", text: "x", cache_control: { type: "ephemeral", ttl: "1h" } }] }],
  });
  const fiveMinutes = JSON.stringify({
    messages: [{ role: "user", content: [{ type: "text", text: "x", cache_control: { type: "ephemeral" } }] }],
  });

  it("bills writes reported without a lifetime as 1-hour ones when the request asked for an hour", () => {
    expect(withWriteLifetime({ ...writes, cacheWriteLifetimeUnknown: true }, oneHour)).toMatchObject({
      cacheWrite5mTokens: 0,
      cacheWrite1hTokens: 800,
    });
    expect(withWriteLifetime({ ...writes, cacheWriteLifetimeUnknown: true }, fiveMinutes)).toMatchObject({ cacheWrite5mTokens: 800 });
  });

  it("leaves a split the upstream reported as it is", () => {
    expect(withWriteLifetime(writes, oneHour)).toBe(writes);
  });
});
