// The mock's model of provider prompt caching, so cache hits come from the traffic a gateway
// sends: prefixes of a request's blocks (prompt-tokens.ts), chained by hash, remembered per
// (family, account, model) with a lifetime. Automatic caching (OpenAI, Gemini implicit) or
// Anthropic's breakpoints with their lookback; the stats say what the traffic earned (README).
import { createHash } from "node:crypto";
import type { PromptBlock, Ttl } from "./prompt-tokens";

/** Below this many tokens a prefix is never cached (OpenAI's, Gemini Flash's and Sonnet's minimum). */
export const MIN_CACHED_TOKENS = 1024;
/** OpenAI counts cache hits in steps of 128 tokens beyond the first 1024. */
export const OPENAI_CACHE_STEP = 128;
/** Automatic caches (OpenAI, Gemini implicit) keep a prefix 5 minutes after its last use. */
export const AUTOMATIC_LIFETIME_MS = 5 * 60_000;
/** Anthropic's breakpoint lifetimes: 5 minutes by default, an hour with `ttl: "1h"`; a read restarts them. */
export const BREAKPOINT_LIFETIME_MS: Readonly<Record<Ttl, number>> = { "5m": 5 * 60_000, "1h": 60 * 60_000 };
/** Anthropic looks for an earlier cached boundary at most this many blocks back from a breakpoint, the breakpoint's own included. */
export const LOOKBACK_BLOCKS = 20;
/** At most this many prefixes are remembered; the least recently stored go first. */
export const MAX_ENTRIES = 100_000;

/**
 * How a provider caches: `openai` automatic, hits rounded down to 1024 + n x 128; `gemini` automatic,
 * unrounded; `anthropic` only at breakpoints (Claude anywhere, Bedrock Converse's cachePoints).
 */
export type CacheRules = "openai" | "gemini" | "anthropic";

export interface CachedCall {
  /** Whose cache: the persona, so one provider's entries never serve another's. */
  family: string;
  /** The credential the request presented (kept only as a digest). */
  credential: string;
  model: string;
  rules: CacheRules;
  blocks: readonly PromptBlock[];
}

/** What the cache did for one request, in tokens. */
export interface CacheOutcome {
  /** The whole prompt: every block, read and written ones included. */
  promptTokens: number;
  readTokens: number;
  /** Anthropic-style writes, by lifetime (automatic caching writes nothing billable). */
  write5mTokens: number;
  write1hTokens: number;
}

export interface CacheCounters {
  requests: number;
  /** Requests that read anything from the cache. */
  reads: number;
  inputTokens: number;
  cachedTokens: number;
  writeTokens: number;
}

export interface PromptCacheStats extends CacheCounters {
  enabled: boolean;
  /** Prefixes remembered (expired ones are dropped when next looked at, or evicted). */
  entries: number;
  /** By account name: the mapped one, else `sha256:` and the credential digest's first 8 hex digits. */
  byAccount: Record<string, CacheCounters>;
}

interface Entry {
  expiresAt: number;
  lifetimeMs: number;
}

interface Prefix {
  hash: string;
  /** Tokens from the start of the prompt to the end of this block. */
  tokens: number;
  breakpoint?: Ttl;
}

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");
const zero = (): CacheCounters => ({ requests: 0, reads: 0, inputTokens: 0, cachedTokens: 0, writeTokens: 0 });

export class PromptCache {
  enabled: boolean;
  private readonly entries = new Map<string, Entry>();
  /** Credential digest -> account name. */
  private readonly accounts = new Map<string, string>();
  private totals = zero();
  private byAccount = new Map<string, CacheCounters>();

  constructor(
    private readonly enabledByDefault: boolean,
    private readonly now: () => number = Date.now,
    private readonly maxEntries = MAX_ENTRIES,
  ) {
    this.enabled = enabledByDefault;
  }

  /** The account a credential belongs to: mapped, else its own (named by a short digest, never the credential). */
  accountOf(credential: string): string {
    const digest = sha256(credential);
    return this.accounts.get(digest) ?? `sha256:${digest.slice(0, 8)}`;
  }

  /** Credentials (keys) -> account names: several keys of one provider account share its cache. */
  mapAccounts(mapping: Readonly<Record<string, string>>): void {
    for (const [credential, account] of Object.entries(mapping)) this.accounts.set(sha256(credential), account);
  }

  /** Looks the request's prompt up, stores what it caches, counts it. */
  use(call: CachedCall): CacheOutcome {
    const account = this.accountOf(call.credential);
    let hash = sha256(`${call.family}\n${account}\n${call.model}`);
    let tokens = 0;
    const prefixes: Prefix[] = call.blocks.map((block) => {
      hash = sha256(hash + block.text);
      tokens += block.tokens;
      return block.breakpoint === undefined ? { hash, tokens } : { hash, tokens, breakpoint: block.breakpoint };
    });
    const now = this.now();
    const cached = call.rules === "anthropic" ? this.atBreakpoints(prefixes, now) : this.automatic(prefixes, now, call.rules);
    const outcome = { promptTokens: tokens, ...cached };
    this.count(account, outcome);
    return outcome;
  }

  stats(): PromptCacheStats {
    return {
      enabled: this.enabled,
      ...this.totals,
      entries: this.entries.size,
      byAccount: Object.fromEntries([...this.byAccount].map(([name, counters]) => [name, { ...counters }])),
    };
  }

  /** Forgets every cached prefix and the counts. */
  clear(): void {
    this.entries.clear();
    this.totals = zero();
    this.byAccount = new Map();
  }

  /** clear(), the account mapping too, and enabled as the options said. */
  reset(): void {
    this.clear();
    this.accounts.clear();
    this.enabled = this.enabledByDefault;
  }

  /** The longest remembered prefix at a block boundary is read; then every prefix of the request long enough is stored. */
  private automatic(prefixes: readonly Prefix[], now: number, rules: CacheRules): Omit<CacheOutcome, "promptTokens"> {
    let hit = 0;
    for (let i = prefixes.length - 1; i >= 0 && prefixes[i]!.tokens >= MIN_CACHED_TOKENS; i--) {
      if (this.alive(prefixes[i]!.hash, now)) {
        hit = prefixes[i]!.tokens;
        break;
      }
    }
    const step = rules === "openai" ? OPENAI_CACHE_STEP : 1;
    const readTokens = hit < MIN_CACHED_TOKENS ? 0 : MIN_CACHED_TOKENS + Math.floor((hit - MIN_CACHED_TOKENS) / step) * step;
    for (const prefix of prefixes) {
      if (prefix.tokens >= MIN_CACHED_TOKENS) this.store(prefix.hash, AUTOMATIC_LIFETIME_MS, now);
    }
    return { readTokens, write5mTokens: 0, write1hTokens: 0 };
  }

  /**
   * Anthropic: each breakpoint looks for a remembered prefix at its own boundary or up to
   * LOOKBACK_BLOCKS - 1 blocks before it; the longest found is read (its lifetime restarts).
   * Everything after it up to the last breakpoint is written, each stretch with the lifetime of
   * the breakpoint that ends it, and each breakpoint's prefix is stored.
   */
  private atBreakpoints(prefixes: readonly Prefix[], now: number): Omit<CacheOutcome, "promptTokens"> {
    const marks = prefixes.flatMap((prefix, index) => (prefix.breakpoint === undefined ? [] : [index]));
    let readAt = -1;
    for (const mark of marks) {
      for (let j = mark; j > readAt && j > mark - LOOKBACK_BLOCKS; j--) {
        if (prefixes[j]!.tokens >= MIN_CACHED_TOKENS && this.alive(prefixes[j]!.hash, now)) {
          readAt = j;
          break;
        }
      }
    }
    const readTokens = readAt === -1 ? 0 : prefixes[readAt]!.tokens;
    if (readAt !== -1) this.refresh(prefixes[readAt]!.hash, now);
    const written: Record<Ttl, number> = { "5m": 0, "1h": 0 };
    let covered = readTokens;
    for (const mark of marks) {
      const { hash, tokens, breakpoint: ttl = "5m" } = prefixes[mark]!;
      if (tokens < MIN_CACHED_TOKENS) continue;
      if (tokens > covered) {
        written[ttl] += tokens - covered;
        covered = tokens;
      }
      this.store(hash, BREAKPOINT_LIFETIME_MS[ttl], now);
    }
    return { readTokens, write5mTokens: written["5m"], write1hTokens: written["1h"] };
  }

  private alive(hash: string, now: number): boolean {
    const entry = this.entries.get(hash);
    if (entry === undefined) return false;
    if (entry.expiresAt > now) return true;
    this.entries.delete(hash);
    return false;
  }

  private refresh(hash: string, now: number): void {
    const entry = this.entries.get(hash);
    if (entry) this.store(hash, entry.lifetimeMs, now);
  }

  /** Stores or refreshes a prefix (the longer lifetime wins) as the newest entry; the oldest go beyond maxEntries. */
  private store(hash: string, lifetimeMs: number, now: number): void {
    const held = this.entries.get(hash);
    const lifetime = Math.max(lifetimeMs, held?.lifetimeMs ?? 0);
    this.entries.delete(hash);
    this.entries.set(hash, { expiresAt: Math.max(now + lifetime, held?.expiresAt ?? 0), lifetimeMs: lifetime });
    while (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest === undefined) break;
      this.entries.delete(oldest);
    }
  }

  private count(account: string, outcome: CacheOutcome): void {
    let counters = this.byAccount.get(account);
    if (!counters) {
      counters = zero();
      this.byAccount.set(account, counters);
    }
    for (const target of [this.totals, counters]) {
      target.requests++;
      if (outcome.readTokens > 0) target.reads++;
      target.inputTokens += outcome.promptTokens;
      target.cachedTokens += outcome.readTokens;
      target.writeTokens += outcome.write5mTokens + outcome.write1hTokens;
    }
  }
}
