// The money side of one prepared call: the hold, the settle of its actual
// cost, or its release. One place builds these calls for every proxy.
import { estimateTokens } from "../billing/hold-estimate";
import { costNano, type TokenUsage } from "../billing/pricing";
import type { Gateway } from "../gateway";
import type { PreparedCall } from "./prepare-call";

/** Places the call's hold; what was held decides which targets may be tried, and whether their answers are capped (useTarget). */
export async function reserveCall(gateway: Gateway, call: PreparedCall): Promise<void> {
  call.reservedNano = await gateway.billing.reserve({
    requestId: call.requestId,
    projectId: call.identity.projectId,
    amountNano: call.holdNano,
    minAmountNano: call.minHoldNano,
    model: call.target.model.id,
    accessPath: call.target.path.provider,
  });
}

/**
 * Debits the call's cost for these tokens at the answering target's price;
 * returns the amount on the ledger. On a path priced per image, images are
 * billed per image and their tokens are taken out of the output tokens (an
 * upstream such as Gemini counts image tokens as output): never both.
 */
export async function settleCall(
  gateway: Gateway,
  call: PreparedCall,
  tokens: TokenUsage & { inputTokens: number; outputTokens: number; imageTokens?: number },
): Promise<bigint> {
  call.holdClosed = true;
  const { price } = call.target.path;
  const perImage = price.imageNano !== null && price.imageNano !== undefined && (tokens.images ?? 0) > 0;
  const billed = perImage
    ? { ...tokens, outputTokens: Math.max(0, tokens.outputTokens - (tokens.imageTokens ?? 0)) }
    : { ...tokens, images: 0 };
  // The settle is the gateway's own time after the upstream answered (the after_upstream overhead).
  const started = performance.now();
  const debited = await gateway.billing.settle({
    requestId: call.requestId,
    projectId: call.identity.projectId,
    amountNano: costNano(price, billed),
    model: call.target.model.id,
    accessPath: call.target.path.provider,
    inputTokens: tokens.inputTokens,
    outputTokens: tokens.outputTokens,
  });
  gateway.metrics.overhead.series("after_upstream").observe((performance.now() - started) / 1000);
  return debited;
}

/**
 * The client left before any answer reached it, after the request went
 * upstream: the provider has read the prompt, so the prompt is billed
 * (estimated from the forwarded body) and nothing else.
 */
export function settlePromptOnly(gateway: Gateway, call: PreparedCall): Promise<bigint> {
  return settleCall(gateway, call, { inputTokens: estimateTokens(call.target.upstream.body), outputTokens: 0 });
}

export function releaseCall(gateway: Gateway, call: PreparedCall): Promise<void> {
  call.holdClosed = true;
  return gateway.billing.release(call.requestId, call.identity.projectId);
}

/**
 * A safety net for failures nobody planned for (a bug thrown mid-relay): a
 * hold that was placed and neither settled nor released goes back now rather
 * than sitting until it expires. Nothing reached the caller as billed.
 */
export async function releaseIfOpen(gateway: Gateway, call: PreparedCall): Promise<void> {
  if (call.reservedNano !== undefined && !call.holdClosed) await releaseCall(gateway, call);
}
