// One provider variable's keys (docs/providers.md, "Pools of keys"): which key each upstream attempt
// takes, and what the attempt's end does to it. Calls spread over the usable keys by weight (smooth
// weighted round-robin: deterministic, and within any run of picks each key's share follows its
// weight); a key is usable when it is not resting after a 429, not refused (401, 403) and within its
// per-minute limits. A pool never stops a call: with no usable key, the call goes on the key usable
// soonest (refused keys last), so a pool of one behaves as the single key always did.
import type { KeyPoolSettings, PoolKeySettings } from "./key-pool-settings";
import { MinuteWindow } from "./minute-window";

export type KeyState = "active" | "cooling" | "refused";
export const KEY_STATES: readonly KeyState[] = ["active", "cooling", "refused"];

/** How an attempt on a key ended, for the metric. */
export type KeyOutcome = "ok" | "rate_limited" | "refused" | "failed";

export interface KeyPoolOptions {
  now: () => number;
  /** How long a key rests after a 429 that named no wait. */
  cooldownMs: number;
  /** How long a key the upstream refused stays out of its pool before it is tried again. */
  refusalMs: number;
  /** Data planes sharing each key's per-minute limits (the rate limiter's replicas seen); each takes its share. */
  replicas: () => number;
  /** Every attempt's end, by key and outcome. */
  counted?: (pool: string, fingerprint: string, outcome: KeyOutcome) => void;
  /** A key taken out (once per refusal): the operator's log line, never the key. */
  refusedLog?: (fields: { pool: string; key: string; group: string; status: number; retry_at: string }) => void;
}

/** What /health shows of one key. */
export interface KeyView {
  fingerprint: string;
  group: string;
  weight: number;
  /** Its limits for the whole gateway; null: none. */
  rpm: number | null;
  tpm: number | null;
  state: KeyState;
  /** When a cooling key is usable again, or a refused key is tried again; null when active. */
  until: string | null;
  requests_last_minute: number;
  tokens_last_minute: number;
}

export interface KeyPoolView {
  /** The variable catalogue paths name. */
  pool: string;
  /** The variable its keys came from. */
  source: string;
  keys: KeyView[];
}

class PooledKey {
  /** Smooth weighted round-robin's running weight. */
  current = 0;
  coolingUntil = 0;
  refusedUntil = 0;
  /** When the latest rest and refusal began: only an attempt taken after it says the key serves again. */
  coolingSince = 0;
  refusedSince = 0;
  readonly window = new MinuteWindow();

  constructor(readonly settings: PoolKeySettings) {}

  state(now: number): KeyState {
    if (now < this.refusedUntil) return "refused";
    return now < this.coolingUntil ? "cooling" : "active";
  }
}

/** The key one attempt took: its use is counted when taken, and its outcome once. */
export class KeyUse {
  private ended = false;

  constructor(
    private readonly pool: KeyPool,
    private readonly pooled: PooledKey,
    /** When it was taken; the second its use was counted in, and the tokens counted then. */
    private readonly takenAt: number,
    private readonly second: number,
    private readonly tokens: number,
  ) {}

  /** The secret, for the upstream call's header only. */
  get apiKey(): string {
    return this.pooled.settings.key;
  }

  get fingerprint(): string {
    return this.pooled.settings.fingerprint;
  }

  get group(): string {
    return this.pooled.settings.group;
  }

  /**
   * The upstream's status for the attempt: 200 took the call; 429 (or a quota acted on as one) rests
   * the key for `retryAfterSeconds`, else the pool's cooldown; 401 or 403 takes it out of the pool for
   * the refusal time, logged once; any other leaves its state as it was.
   */
  answeredWith(status: number, retryAfterSeconds?: number): void {
    if (status === 200) this.served();
    else if (status === 429) this.rested(retryAfterSeconds === undefined ? this.pool.options.cooldownMs : retryAfterSeconds * 1000);
    else if (status === 401 || status === 403) this.refused(status);
    else this.end("failed");
  }

  /** No answer came (a timeout, a reset, no credential, the client left): the key's state is left as it was. */
  unanswered(): void {
    this.end("failed");
  }

  /** What the call used, reported (input and output) or estimated: counted in its minute in place of the estimate taken. */
  used(tokens: number): void {
    this.pooled.window.correct(this.pool.now(), this.second, tokens - this.tokens);
  }

  /** Taken while the key rested or was refused (the pool had none better), it is back in use; an answer to a call sent before says nothing new. */
  private served(): void {
    if (!this.end("ok")) return;
    if (this.takenAt > this.pooled.coolingSince) this.pooled.coolingUntil = 0;
    if (this.takenAt > this.pooled.refusedSince) this.pooled.refusedUntil = 0;
  }

  private rested(ms: number): void {
    if (!this.end("rate_limited")) return;
    const now = this.pool.now();
    this.pooled.coolingSince = now;
    this.pooled.coolingUntil = Math.max(this.pooled.coolingUntil, now + ms);
  }

  private refused(status: number): void {
    if (!this.end("refused")) return;
    const now = this.pool.now();
    const wasRefused = now < this.pooled.refusedUntil;
    this.pooled.refusedSince = now;
    this.pooled.refusedUntil = now + this.pool.options.refusalMs;
    if (!wasRefused)
      this.pool.options.refusedLog?.({
        pool: this.pool.variable,
        key: this.fingerprint,
        group: this.group,
        status,
        retry_at: new Date(this.pooled.refusedUntil).toISOString(),
      });
  }

  private end(outcome: KeyOutcome): boolean {
    if (this.ended) return false;
    this.ended = true;
    this.pool.options.counted?.(this.pool.variable, this.fingerprint, outcome);
    return true;
  }
}

export class KeyPool {
  readonly variable: string;
  readonly source: string;
  private readonly keys: PooledKey[];

  constructor(
    settings: KeyPoolSettings,
    readonly options: KeyPoolOptions,
  ) {
    this.variable = settings.variable;
    this.source = settings.source;
    this.keys = settings.keys.map((key) => new PooledKey(key));
  }

  now(): number {
    return this.options.now();
  }

  /** The key a call is built with before an attempt takes one (the first). */
  get firstKey(): string {
    return this.keys[0]!.settings.key;
  }

  /** A pool of one key: every call goes with the key it was built with. */
  get single(): boolean {
    return this.keys.length === 1;
  }

  /**
   * The key for one attempt of `tokens` (the request's estimated input), counted in its minute: a
   * usable key of `group` when there is one (a conversation's account keeps its prompt cache), else
   * any usable key, by weight; with none, the key usable soonest.
   */
  take(tokens: number, group?: string): KeyUse {
    const now = this.now();
    const key = this.single ? this.keys[0]! : this.choose(tokens, group, now);
    return new KeyUse(this, key, now, key.window.add(now, tokens), tokens);
  }

  /** Whether a key of `group` (of any group when undefined) could take a request of `tokens` now. */
  hasUsable(tokens: number, group?: string): boolean {
    const now = this.now();
    return this.keys.some((key) => (group === undefined || key.settings.group === group) && this.usable(key, tokens, now));
  }

  /** Keys by state, for the gauge. */
  states(): Record<KeyState, number> {
    const now = this.now();
    const counts: Record<KeyState, number> = { active: 0, cooling: 0, refused: 0 };
    for (const key of this.keys) counts[key.state(now)]++;
    return counts;
  }

  view(): KeyPoolView {
    const now = this.now();
    return {
      pool: this.variable,
      source: this.source,
      keys: this.keys.map((key) => {
        const state = key.state(now);
        const { requests, tokens } = key.window.totals(now);
        const until = state === "refused" ? key.refusedUntil : state === "cooling" ? key.coolingUntil : undefined;
        return {
          fingerprint: key.settings.fingerprint,
          group: key.settings.group,
          weight: key.settings.weight,
          rpm: key.settings.rpm ?? null,
          tpm: key.settings.tpm ?? null,
          state,
          until: until === undefined ? null : new Date(until).toISOString(),
          requests_last_minute: requests,
          tokens_last_minute: Math.round(tokens),
        };
      }),
    };
  }

  private choose(tokens: number, group: string | undefined, now: number): PooledKey {
    const usable = this.keys.filter((key) => this.usable(key, tokens, now));
    const ofGroup = group === undefined ? [] : usable.filter((key) => key.settings.group === group);
    if (ofGroup.length > 0) return spread(ofGroup);
    if (usable.length > 0) return spread(usable);
    return this.soonest(tokens, now);
  }

  private usable(key: PooledKey, tokens: number, now: number): boolean {
    return key.state(now) === "active" && this.withinLimits(key, tokens, now);
  }

  private withinLimits(key: PooledKey, tokens: number, now: number): boolean {
    const { rpm, tpm } = key.settings;
    if (rpm === undefined && tpm === undefined) return true;
    const used = key.window.totals(now);
    return (rpm === undefined || used.requests + 1 <= this.share(rpm)) && (tpm === undefined || used.tokens + tokens <= this.share(tpm));
  }

  /** This data plane's share of a limit for the whole gateway. */
  private share(limit: number): number {
    return Math.max(1, Math.floor(limit / Math.max(1, this.options.replicas())));
  }

  /** The key that becomes usable first: resting or over its limits, by when; refused keys after those, by when they are tried again. */
  private soonest(tokens: number, now: number): PooledKey {
    let best: { key: PooledKey; refused: boolean; at: number } | undefined;
    for (const key of this.keys) {
      const refused = key.state(now) === "refused";
      const limitedUntil = this.withinLimits(key, tokens, now) ? now : now + key.window.nextReleaseMs(now);
      const at = refused ? key.refusedUntil : Math.max(key.coolingUntil, limitedUntil);
      if (!best || Number(refused) < Number(best.refused) || (refused === best.refused && at < best.at)) best = { key, refused, at };
    }
    return best!.key;
  }
}

/** Smooth weighted round-robin over `keys` (nginx's): each pick raises every key by its weight and lowers the one picked by their sum. */
function spread(keys: PooledKey[]): PooledKey {
  let total = 0;
  let best: PooledKey | undefined;
  for (const key of keys) {
    key.current += key.settings.weight;
    total += key.settings.weight;
    if (!best || key.current > best.current) best = key;
  }
  best!.current -= total;
  return best!;
}

/** A pool for each configured variable, by that variable. */
export function buildKeyPools(settings: ReadonlyMap<string, KeyPoolSettings>, options: KeyPoolOptions): Map<string, KeyPool> {
  return new Map([...settings].map(([variable, pool]) => [variable, new KeyPool(pool, options)]));
}
