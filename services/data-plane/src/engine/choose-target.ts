// The call sent to a chosen target, within what was reserved. A target whose
// worst case the hold covers goes as planned; otherwise, when the caller
// accepted a capped answer (no max tokens), its answer is capped to the hold
// (forwarded as max_tokens and said in the routing trace). Undefined when the
// hold cannot cover even a capped answer: the target is skipped.
import { chatImageUpperBound } from "../billing/hold-estimate";
import { affordableOutputTokens } from "../billing/pricing";
import type { UpstreamCall } from "../providers/provider-adapter";
import type { RouteTrace } from "../routing/route-trace";
import { CAP_FIELD_BYTES, type CallTarget } from "./call-plan";

export interface ChosenCall {
  upstream: UpstreamCall;
  /** The max_tokens the answer was capped to, when it was. */
  cappedTo?: number;
}

export function chooseCall(target: CallTarget, body: Record<string, unknown>, reservedNano: bigint): ChosenCall | undefined {
  const sized = target.sized;
  if (reservedNano >= sized.holdNano) return { upstream: sized.upstream };
  if (sized.minHoldNano === 0n || reservedNano < sized.minHoldNano) return undefined;
  const { price } = target.path;
  const imagesNano = BigInt(chatImageUpperBound(body)) * (price.imageNano ?? 0n);
  const maxTokens = affordableOutputTokens(price, sized.inputUpperTokens + CAP_FIELD_BYTES, reservedNano - imagesNano);
  return { upstream: target.build(maxTokens), cappedTo: maxTokens };
}

/** The routing trace names the target being tried, and the cap its answer got (none for a target the hold covers). */
export function traceChoice(trace: RouteTrace, target: CallTarget, chosen: ChosenCall | undefined): void {
  trace.resolved = target.model.id;
  trace.path = target.path.provider;
  if (chosen?.cappedTo === undefined) delete trace.max_tokens_capped;
  else trace.max_tokens_capped = chosen.cappedTo;
}
