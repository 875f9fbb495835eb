// The caller-facing error of a Reserve's (or CheckSpend's) answer that did not reserve: 402, 429, 401
// or 503 (docs/errors.md), one table for both calls (request-billing.ts).
import type { ControlPlaneClientWrapper } from "../control-plane/control-plane-client";
import {
  controlPlaneUnavailable,
  type GatewayError,
  insufficientCredits,
  invalidApiKey,
  keyBudgetExceeded,
  spendCapExceeded,
} from "../errors";

/** The caller-facing refusal of a Reserve's (or CheckSpend's) answer; undefined when it passed. */
export function refusalOf(answer: Awaited<ReturnType<ControlPlaneClientWrapper["reserve"]>>): GatewayError | undefined {
  switch (answer.outcome) {
    case "RESERVED":
      return undefined;
    case "INSUFFICIENT_CREDITS":
      return insufficientCredits();
    case "SPEND_CAP_EXCEEDED":
      return spendCapExceeded(answer.retryAfterSeconds);
    case "KEY_SPEND_CAP_EXCEEDED":
      return spendCapExceeded(answer.retryAfterSeconds, "key");
    case "KEY_BUDGET_EXCEEDED":
      return keyBudgetExceeded();
    case "UNKNOWN_PROJECT":
      return invalidApiKey();
    default:
      return controlPlaneUnavailable("The control plane gave an unexpected answer.");
  }
}
