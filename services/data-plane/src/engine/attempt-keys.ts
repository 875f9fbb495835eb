// The key each upstream attempt sends, on a path with a pool of keys (docs/providers.md, "Pools of
// keys"): a key of the group whose key just failed, else of the conversation's pinned group on its
// pinned target; and what a key's failure means for the next attempt.
import type { TraceSpan } from "@gateway/proto/tracing";
import type { SendStep } from "./attempt-policy";
import type { Call } from "./call";

export class AttemptKeys {
  /** The group of the key whose failure asked for another key (the next attempt prefers it). */
  private switchGroup: string | undefined;

  /** The attempt's key from its target's pool (none on a path without one), and the call sent with it. */
  take(call: Call, step: SendStep, span: TraceSpan): void {
    const { target } = call;
    const group = step.keySwitch ? this.switchGroup : step.index === 0 ? call.plan.pinnedGroup : undefined;
    call.key = target.pool?.take(target.sized.bound.inputTokens, group);
    if (!call.key) return;
    call.upstream = target.keyed(call.upstream, call.key.apiKey);
    span.set("gateway.provider_key", call.key.fingerprint);
  }

  /**
   * An upstream failure on the attempt's key: a 429 rests it (its Retry-After, else the pool's
   * cooldown), a 401 or 403 takes it out of the pool. True when another key can serve now: for a 429 one
   * of the same group (the account whose cache the call may have), for a refusal any.
   */
  failed(call: Call, status: number, retryAfterSeconds: number | undefined): boolean {
    const { key, target } = call;
    if (!key || !target.pool) return false;
    key.answeredWith(status, retryAfterSeconds);
    this.switchGroup = key.group;
    const tokens = target.sized.bound.inputTokens;
    if (status === 429) return target.pool.hasUsable(tokens, key.group);
    return (status === 401 || status === 403) && target.pool.hasUsable(tokens);
  }
}
