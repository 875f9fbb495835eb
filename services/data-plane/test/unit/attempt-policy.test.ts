// The attempt policy as a table: (state, outcome) -> (step, state). Targets
// are 0..3; at most 4 attempts; a 1 s wait budget; 250 ms backoff.
import { describe, expect, it } from "vitest";
import {
  type AttemptOutcome,
  type AttemptState,
  type AttemptStep,
  INITIAL_ATTEMPT_STATE,
  nextAttempt,
  type SendStep,
} from "../../src/engine/attempt-policy";

const SETTINGS = { maxAttempts: 4, retryWaitBudgetMs: 1_000, retryBackoffMs: 250 };
const TARGETS = 4;

const send = (index: number, waitMs = 0): SendStep => ({ kind: "send", index, waitMs, retry: waitMs > 0 });
const GIVE_UP: AttemptStep = { kind: "give_up" };
/** A state after attempts were sent, with `proposed` the step now waiting for its outcome. */
const state = (fields: Partial<AttemptState>): AttemptState => ({ ...INITIAL_ATTEMPT_STATE, ...fields });

const TABLE: [name: string, before: AttemptState, outcome: AttemptOutcome, step: AttemptStep, after: Partial<AttemptState>][] = [
  ["the first target first", INITIAL_ATTEMPT_STATE, { kind: "start" }, send(0), { proposed: send(0) }],
  [
    "a first transient failure: the same target after the backoff",
    state({ proposed: send(0) }),
    { kind: "transient" },
    { kind: "send", index: 0, waitMs: 250, retry: true },
    { index: 0, tries: 1, sent: 1 },
  ],
  [
    "after the upstream's Retry-After when it fits the budget",
    state({ proposed: send(0) }),
    { kind: "transient", retryAfterMs: 1_000 },
    { kind: "send", index: 0, waitMs: 1_000, retry: true },
    { tries: 1, sent: 1 },
  ],
  [
    "a Retry-After beyond the budget: the next target at once",
    state({ proposed: send(0) }),
    { kind: "transient", retryAfterMs: 1_001 },
    send(1),
    { index: 0, tries: 1, sent: 1 },
  ],
  [
    "the retry failed too: the next target, counting the wait",
    state({ tries: 1, sent: 1, proposed: send(0, 250) }),
    { kind: "transient" },
    send(1),
    { index: 0, tries: 2, sent: 2, waitedMs: 250, retried: true },
  ],
  [
    "one same-target retry per request: a later target's failure moves on",
    state({ tries: 2, sent: 2, waitedMs: 250, retried: true, proposed: send(1) }),
    { kind: "transient" },
    send(2),
    { index: 1, tries: 1, sent: 3 },
  ],
  [
    "a path's own refusal: the next target without a retry",
    state({ proposed: send(0) }),
    { kind: "path_refused" },
    send(1),
    { index: 0, tries: 1, sent: 1, retried: false },
  ],
  ["a rejection of the request: give up at once", state({ proposed: send(0) }), { kind: "rejected" }, GIVE_UP, { sent: 1 }],
  [
    "an unusable target (hold, circuit): the next one, nothing sent",
    state({ proposed: send(0) }),
    { kind: "unusable" },
    send(1),
    { sent: 0, tries: 0 },
  ],
  [
    "an unusable retry (the circuit opened): the next target",
    state({ tries: 1, sent: 1, proposed: send(0, 250) }),
    { kind: "unusable" },
    send(1),
    { tries: 1, sent: 1, waitedMs: 0, retried: false },
  ],
  ["nothing left after the last target", state({ index: 2, tries: 1, sent: 3, proposed: send(3) }), { kind: "path_refused" }, GIVE_UP, {}],
  ["the last unusable: nothing left", state({ proposed: send(3) }), { kind: "unusable" }, GIVE_UP, {}],
  [
    "the attempt limit ends it whatever is left",
    state({ index: 1, tries: 1, sent: 3, retried: true, proposed: send(2) }),
    { kind: "transient" },
    GIVE_UP,
    { sent: 4 },
  ],
];

describe("nextAttempt", () => {
  it.each(TABLE)("%s", (_name, before, outcome, step, after) => {
    const next = nextAttempt(before, outcome, SETTINGS, TARGETS);
    expect(next.step).toEqual(step);
    expect(next.state).toMatchObject(after);
    expect(next.state.proposed).toEqual(step.kind === "send" ? step : undefined);
  });

  it("keeps a fallback model within reach: three failures on two paths of one model, then the next model", () => {
    let current = INITIAL_ATTEMPT_STATE;
    const steps: AttemptStep[] = [];
    for (const outcome of [{ kind: "start" }, { kind: "transient" }, { kind: "transient" }, { kind: "transient" }] as AttemptOutcome[]) {
      const next = nextAttempt(current, outcome, SETTINGS, 3);
      steps.push(next.step);
      current = next.state;
    }
    expect(steps).toEqual([send(0), send(0, 250), send(1), send(2)]);
  });

  it("never changes the state it is given", () => {
    const before = state({ proposed: send(0) });
    const copy = structuredClone(before);
    nextAttempt(before, { kind: "transient" }, SETTINGS, TARGETS);
    expect(before).toEqual(copy);
  });
});
