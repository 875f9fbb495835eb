// Which upstream attempt comes next, as a pure function of what happened so far
// (docs/resilience.md). Targets are a call's models and access paths in the
// order they may be tried. After the first transient failure of a target, that
// target once more (after the upstream's Retry-After when it fits the wait
// budget, else a short backoff); one such retry per request, so a fallback
// model stays within reach of the attempt limit. After any other failure, the
// next target. A failure of a pool's key alone (429, 401, 403) while another of its keys can serve
// sends the same target again at once, with that key: a new attempt, which is not the request's
// retry and leaves the target's tries as they were. A proposal the engine cannot use (the hold does not cover the
// target, its circuit is open) moves on without counting as an attempt.

export interface AttemptSettings {
  /** Upstream calls per request, across retries, access paths and models. */
  maxAttempts: number;
  /** The longest a request waits before retries, in total. */
  retryWaitBudgetMs: number;
  /** The wait before a same-target retry when the upstream named none. */
  retryBackoffMs: number;
}

export interface AttemptState {
  /** The target proposed or tried last. */
  readonly index: number;
  /** Attempts sent to that target. */
  readonly tries: number;
  /** Attempts sent in all. */
  readonly sent: number;
  readonly waitedMs: number;
  /** The request's one same-target retry was used. */
  readonly retried: boolean;
  /** The step proposed and not yet answered by an outcome. */
  readonly proposed: SendStep | undefined;
}

export type AttemptOutcome =
  | { kind: "start" }
  /** The proposed target cannot be used now: no attempt was sent. */
  | { kind: "unusable" }
  /** Sent and failed in a way a retry may fix (429, 5xx, a timeout, a reset, a stream cut before its first event). */
  | { kind: "transient"; retryAfterMs?: number }
  /** Sent and refused for reasons of the path itself (our key, our credit, the model gone there): next target. */
  | { kind: "path_refused" }
  /** Sent and refused for reasons of the request: nothing else will do better. */
  | { kind: "rejected" }
  /** Sent and refused for reasons of its key alone (rate limited, refused) while another key of the target's pool can be used now. */
  | { kind: "key_switch" };

export interface SendStep {
  kind: "send";
  index: number;
  /** Wait this long first (a same-target retry). */
  waitMs: number;
  retry: boolean;
  /** The same target at once with another key of its pool. */
  keySwitch?: true;
}

export type AttemptStep = SendStep | { kind: "give_up" };

export const INITIAL_ATTEMPT_STATE: AttemptState = { index: 0, tries: 0, sent: 0, waitedMs: 0, retried: false, proposed: undefined };

/** The next step, and the state it leaves. */
export function nextAttempt(
  state: AttemptState,
  outcome: AttemptOutcome,
  settings: AttemptSettings,
  targetCount: number,
): { step: AttemptStep; state: AttemptState } {
  const proposed = state.proposed;
  switch (outcome.kind) {
    case "start":
      return propose(INITIAL_ATTEMPT_STATE, 0, targetCount);
    case "unusable":
      return propose(state, (proposed?.index ?? state.index) + 1, targetCount);
    case "rejected":
      return giveUp(afterSend(state));
    case "path_refused": {
      const sent = afterSend(state);
      if (sent.sent >= settings.maxAttempts) return giveUp(sent);
      return propose(sent, sent.index + 1, targetCount);
    }
    case "key_switch": {
      const sent = afterSend(state);
      if (sent.sent >= settings.maxAttempts) return giveUp(sent);
      const step: SendStep = { kind: "send", index: sent.index, waitMs: 0, retry: false, keySwitch: true };
      return { step, state: { ...sent, proposed: step } };
    }
    case "transient": {
      const sent = afterSend(state);
      if (sent.sent >= settings.maxAttempts) return giveUp(sent);
      const waitMs = outcome.retryAfterMs ?? settings.retryBackoffMs;
      if (sent.tries === 1 && !sent.retried && sent.waitedMs + waitMs <= settings.retryWaitBudgetMs) {
        const step: SendStep = { kind: "send", index: sent.index, waitMs, retry: true };
        return { step, state: { ...sent, proposed: step } };
      }
      return propose(sent, sent.index + 1, targetCount);
    }
  }
}

/** The proposed step was sent: count it. */
function afterSend(state: AttemptState): AttemptState {
  const step = state.proposed;
  if (!step) return state;
  return {
    index: step.index,
    // Another key is a fresh start on the target: its first failure may still have the request's retry.
    tries: step.keySwitch ? 1 : step.index === state.index ? state.tries + 1 : 1,
    sent: state.sent + 1,
    waitedMs: state.waitedMs + step.waitMs,
    retried: state.retried || step.retry,
    proposed: undefined,
  };
}

function propose(state: AttemptState, index: number, targetCount: number): { step: AttemptStep; state: AttemptState } {
  if (index >= targetCount) return giveUp(state);
  const step: SendStep = { kind: "send", index, waitMs: 0, retry: false };
  return { step, state: { ...state, proposed: step } };
}

function giveUp(state: AttemptState): { step: AttemptStep; state: AttemptState } {
  return { step: { kind: "give_up" }, state: { ...state, proposed: undefined } };
}
