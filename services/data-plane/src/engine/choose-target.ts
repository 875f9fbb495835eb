// The call sent to a chosen target, within what was reserved. A target whose
// worst case the hold covers goes as planned; otherwise, when the caller
// accepted a capped answer (no max tokens), its answer is capped to the most
// output whose worst case the hold covers (forwarded as max_tokens and said in
// the routing trace). Undefined when the hold cannot cover even a capped
// answer: the target is skipped.
import { affordableOutputTokens, cappedBound } from "../billing/worst-case";
import type { UpstreamCall } from "../providers/provider-adapter";
import type { RouteTrace } from "../routing/route-trace";
import type { CallTarget } from "./call-plan";

export interface ChosenCall {
  upstream: UpstreamCall;
  /** The max_tokens the answer was capped to, when it was. */
  cappedTo?: number;
}

export function chooseCall(target: CallTarget, reservedNano: bigint): ChosenCall | undefined {
  const sized = target.sized;
  if (reservedNano >= sized.holdNano) return { upstream: sized.upstream };
  if (sized.minHoldNano === 0n || reservedNano < sized.minHoldNano) return undefined;
  // The capped call's worst case is the same bound with the cap as its output limit (thinking beyond it included).
  const maxTokens = affordableOutputTokens(target.path.price, cappedBound(sized.bound, 0), reservedNano);
  return { upstream: target.build(maxTokens), cappedTo: maxTokens };
}

/** The routing trace names the target being tried, and the cap its answer got (none for a target the hold covers). */
export function traceChoice(trace: RouteTrace, target: CallTarget, chosen: ChosenCall | undefined): void {
  trace.resolved = target.model.id;
  trace.path = target.path.provider;
  if (chosen?.cappedTo === undefined) delete trace.max_tokens_capped;
  else trace.max_tokens_capped = chosen.cappedTo;
}
