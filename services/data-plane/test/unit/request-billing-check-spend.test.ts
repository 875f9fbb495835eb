// A free call refused for money as the paid call would be (issue 33, item 5): RequestBilling.checkSpend
// asks the control plane's CheckSpend (a Reserve's checks, no hold) and throws the same refusal a
// reserve would, from the one mapping of the Reserve's outcomes.
import type { ReserveResponse__Output } from "@gateway/proto";
import { describe, expect, it, vi } from "vitest";
import { type BillingCalls, RequestBilling } from "../../src/billing/request-billing";

const answer = (outcome: ReserveResponse__Output["outcome"], retryAfterSeconds = 0): ReserveResponse__Output => ({
  outcome,
  retryAfterSeconds,
  availableNano: "0",
  reservedNano: "0",
  ttlSeconds: 0,
});

function billingAnswering(outcome: ReserveResponse__Output["outcome"], retryAfterSeconds = 0) {
  const calls = {
    checkSpend: vi.fn(async () => answer(outcome, retryAfterSeconds)),
    reserve: vi.fn(async () => answer(outcome, retryAfterSeconds)),
  };
  const billing = new RequestBilling(calls as unknown as BillingCalls, { warn: () => {}, error: () => {} });
  return { billing, calls };
}

describe("RequestBilling.checkSpend", () => {
  it("passes when a reserve would, asking with the project and key, and reserves nothing", async () => {
    const { billing, calls } = billingAnswering("RESERVED");
    await expect(billing.checkSpend("p1", "k1")).resolves.toBeUndefined();
    expect(calls.checkSpend).toHaveBeenCalledWith("p1", "k1", expect.anything());
    expect(calls.reserve).not.toHaveBeenCalled();
  });

  it.each<[ReserveResponse__Output["outcome"], Record<string, unknown>]>([
    ["INSUFFICIENT_CREDITS", { status: 402, code: "insufficient_credits" }],
    ["KEY_BUDGET_EXCEEDED", { status: 402 }],
    ["SPEND_CAP_EXCEEDED", { status: 429, code: "spend_cap_exceeded", headers: { "retry-after": "3600" } }],
    ["KEY_SPEND_CAP_EXCEEDED", { status: 429, code: "spend_cap_exceeded", headers: { "retry-after": "3600" } }],
    ["UNKNOWN_PROJECT", { status: 401 }],
    ["OUTCOME_UNSPECIFIED", { status: 503 }],
  ])("throws on %s what a reserve throws", async (outcome, refusal) => {
    const { billing } = billingAnswering(outcome, 3600);
    const checked = await billing.checkSpend("p1", "k1").catch((error: unknown) => error);
    const reserved = await billing
      .reserve({ requestId: "r", projectId: "p1", amountNano: 5n, minAmountNano: 0n, model: "m", accessPath: "a", keyId: "k1" })
      .catch((error: unknown) => error);
    expect(checked).toMatchObject(refusal);
    expect(checked).toEqual(reserved);
  });
});
