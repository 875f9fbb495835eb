// The money side of one prepared call: the hold, the settle of its actual
// cost, or its release. One place builds these calls for every proxy.
import { estimateTokens } from "../billing/hold-estimate";
import { costNano, type TokenUsage } from "../billing/pricing";
import type { Gateway } from "../gateway";
import { capAnswerToHold, type PreparedCall } from "./prepare-call";

/** Places the call's hold; a smaller hold than the worst case caps the answer to it. */
export async function reserveCall(gateway: Gateway, call: PreparedCall): Promise<void> {
  const reserved = await gateway.billing.reserve({
    requestId: call.requestId,
    projectId: call.identity.projectId,
    amountNano: call.holdNano,
    minAmountNano: call.minHoldNano,
    model: call.model.id,
    accessPath: call.path.provider,
  });
  if (reserved < call.holdNano) capAnswerToHold(call, reserved);
}

/** Debits the call's cost for these tokens; returns the amount on the ledger. */
export function settleCall(gateway: Gateway, call: PreparedCall, tokens: TokenUsage & { inputTokens: number; outputTokens: number }): Promise<bigint> {
  return gateway.billing.settle({
    requestId: call.requestId,
    projectId: call.identity.projectId,
    amountNano: costNano(call.path.price, tokens),
    model: call.model.id,
    accessPath: call.path.provider,
    inputTokens: tokens.inputTokens,
    outputTokens: tokens.outputTokens,
  });
}

/**
 * The client left before any answer reached it, after the request went
 * upstream: the provider has read the prompt, so the prompt is billed
 * (estimated from the forwarded body) and nothing else.
 */
export function settlePromptOnly(gateway: Gateway, call: PreparedCall): Promise<bigint> {
  return settleCall(gateway, call, { inputTokens: estimateTokens(call.payload), outputTokens: 0 });
}

export function releaseCall(gateway: Gateway, call: PreparedCall): Promise<void> {
  return gateway.billing.release(call.requestId, call.identity.projectId);
}
