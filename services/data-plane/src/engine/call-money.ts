// The money side of one call: the hold, the settle of its actual cost, or its
// release. Every call ends in exactly one of settle or release.
import type { TraceSpan } from "@gateway/proto/tracing";
import type { ReserveCall, SettleCall } from "../control-plane/control-plane-client";
import { bodyMarks, estimateTokens } from "../billing/hold-estimate";
import { costParts } from "../billing/pricing";
import type { GenAiMetrics } from "../gen-ai-metrics";
import type { UsdCounterFamily } from "../metric-families";
import type { Call } from "./call";
import type { MeteredTokens } from "./usage-meter";

/** What a call's money goes through (billing/request-billing.ts); `parent` is the request's span, for each step's own. */
export interface CallBilling {
  /** Places a hold and returns its amount, or throws the caller-facing refusal. */
  reserve(hold: ReserveCall & { keyMoneyLimits?: boolean }, parent?: TraceSpan): Promise<bigint>;
  /** Throws the refusal a reserve for this project and key would get now, placing nothing. */
  checkSpend(projectId: string, keyId: string, parent?: TraceSpan): Promise<void>;
  /** Debits the actual cost; returns the amount on the ledger. */
  settle(call: SettleCall, parent?: TraceSpan): Promise<bigint>;
  release(requestId: string, projectId: string, parent?: TraceSpan): Promise<void>;
}

/**
 * Cache writes an upstream reported without their lifetime (OpenRouter) are 5-minute ones, unless the
 * request asked for an hour's cache: then they are billed as 1-hour writes (a request that marks some
 * blocks for 5 minutes and some for an hour is billed as if all were an hour: never below the invoice).
 */
export function withWriteLifetime(tokens: MeteredTokens, forwardedBody: string): MeteredTokens {
  if (!tokens.cacheWriteLifetimeUnknown || bodyMarks(forwardedBody).cacheWrite !== "1h") return tokens;
  return { ...tokens, cacheWrite1hTokens: (tokens.cacheWrite1hTokens ?? 0) + (tokens.cacheWrite5mTokens ?? 0), cacheWrite5mTokens: 0 };
}

export class CallMoney {
  constructor(
    private readonly billing: CallBilling,
    /** The gateway's own time after the upstream answered. */
    private readonly afterUpstream: { observe(seconds: number): void },
    /** Computed cost the ledger did not take, by model and access path. */
    private readonly unbilledUsd: Pick<UsdCounterFamily, "series">,
    /** Billed tokens by type and the spend: counted here, with the debit, so they add up to the ledger. */
    private readonly genAi: Pick<GenAiMetrics, "settled">,
  ) {}

  /** Places the call's hold; what was held decides which targets may be tried, and whether their answers are capped. */
  async reserve(call: Call): Promise<void> {
    call.reservedNano = await this.billing.reserve(
      {
        requestId: call.requestId,
        projectId: call.projectId,
        amountNano: call.plan.holdNano,
        minAmountNano: call.plan.minHoldNano,
        model: call.target.model.id,
        accessPath: call.target.path.provider,
        keyId: call.plan.identity.keyId,
        keyMoneyLimits: call.plan.identity.key.moneyLimits,
      },
      call.span,
    );
  }

  /**
   * Debits the call's cost for this usage at the answering target's price; returns the amount on
   * the ledger. On a path priced per image, images are billed per image and their tokens not at all
   * (an upstream such as Gemini counts image tokens as output): never both (billing/pricing.ts).
   */
  async settle(call: Call, tokens: MeteredTokens): Promise<bigint> {
    call.holdClosed = true;
    const { totalNano, parts } = costParts(call.target.path.price, withWriteLifetime(tokens, call.upstream.body));
    const started = performance.now();
    const debited = await this.billing.settle(
      {
        requestId: call.requestId,
        projectId: call.projectId,
        amountNano: totalNano,
        costParts: parts,
        model: call.target.model.id,
        accessPath: call.target.path.provider,
        inputTokens: tokens.inputTokens,
        outputTokens: tokens.outputTokens,
      },
      call.span,
    );
    this.afterUpstream.observe((performance.now() - started) / 1000);
    call.debitedNano = debited;
    call.costParts = parts;
    this.genAi.settled(call, parts, debited);
    // Usage beyond the worst case is debited up to the hold; the rest the gateway absorbs, and counts (docs/money.md).
    if (totalNano > debited) this.unbilledUsd.series(call.target.model.id, call.target.path.provider).add(totalNano - debited);
    return debited;
  }

  /** The client left before any answer reached it, after the upstream had the prompt: the prompt is billed, estimated from the body sent. */
  settlePromptOnly(call: Call): Promise<bigint> {
    return this.settle(call, { inputTokens: estimateTokens(call.upstream.body), outputTokens: 0, images: 0 });
  }

  release(call: Call): Promise<void> {
    call.holdClosed = true;
    return this.billing.release(call.requestId, call.projectId, call.span);
  }

  /** A hold placed and neither settled nor released (a failure nobody planned for) goes back now, not at its expiry. */
  async releaseIfOpen(call: Call): Promise<void> {
    if (call.reservedNano !== undefined && !call.holdClosed) await this.release(call);
  }
}
