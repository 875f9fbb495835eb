// One call in flight: its plan, the target being tried (once answered, the one
// that answered, billed at its price), and the state of its hold.
import { NO_SPAN, type TraceSpan } from "@gateway/proto/tracing";
import type { CostPart } from "../control-plane/control-plane-client";
import type { KeyUse } from "../providers/key-pool/key-pool";
import type { UpstreamCall } from "../providers/provider-adapter";
import type { Conversation } from "../routing/conversation-key";
import type { CallPlan, CallTarget } from "./call-plan";

export class Call {
  /** The target tried last; once answered, the one that answered. */
  target: CallTarget;
  /** The call sent to it (its body is what an estimate of the prompt reads). */
  upstream: UpstreamCall;
  /** The pool's key the last attempt took (once answered, the one that answered); undefined on a path without a pool. */
  key: KeyUse | undefined;
  /** What the control plane held; set by the reserve. */
  reservedNano: bigint | undefined;
  /** What an aggregator said the answer cost it (OpenRouter's usage.cost, USD), for the request's record. */
  upstreamCostUsd: number | undefined;
  /** What the ledger debited, once settled. */
  debitedNano: bigint | undefined;
  /** The settled cost by component, with its units (tokens by kind, images...): the request's log line reads them. */
  costParts: readonly CostPart[] | undefined;
  /** Settled or released: nothing more may touch the hold. */
  holdClosed = false;
  /** performance.now() when the request's body had been read, for the gateway-overhead metric. */
  readonly receivedAt: number;

  constructor(
    readonly plan: CallPlan,
    receivedAt: number,
    /** The request's server span: the money and attempt spans are its children (NO_SPAN with tracing off). */
    readonly span: TraceSpan = NO_SPAN,
    /** The conversation the call is a turn of, when affinity applies to it. */
    readonly conversation?: Conversation,
  ) {
    this.target = plan.targets[0]!;
    this.upstream = this.target.sized.upstream;
    this.receivedAt = receivedAt;
  }

  get requestId(): string {
    return this.plan.requestId;
  }

  get projectId(): string {
    return this.plan.identity.projectId;
  }
}
