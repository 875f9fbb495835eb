// A credential that expires (AWS temporary keys, an OAuth2 access token, an
// Entra ID token), kept fresh off the request path: it is fetched once, then
// refreshed in the background a margin before it expires, and every caller in
// between gets the one held. Concurrent callers share one fetch: a refresh
// under load happens once, not once per request.
import { UpstreamCredentialsError } from "./upstream-auth";

/** A credential is not sent in the last 10 s of its life (at most the last quarter of a short one). */
const EXPIRY_SKEW_MS = 10_000;

export interface Expiring<Value> {
  value: Value;
  /** Epoch milliseconds; undefined for a credential that does not expire (static keys). */
  expiresAtMs: number | undefined;
}

export interface RefreshingCredentialOptions {
  /** Refresh this long before expiry (default 5 minutes, as the AWS and Google SDKs do). */
  marginMs?: number;
  /** After a failed background refresh, try again this soon (default 10 s). */
  retryMs?: number;
  /** invalidate() keeps a credential younger than this (default 30 s): a flood of refusals fetches once, not once each. */
  minAgeMs?: number;
  now?: () => number;
}

export class RefreshingCredential<Value> {
  private held: (Expiring<Value> & { fetchedAtMs: number }) | undefined;
  private fetching: Promise<Expiring<Value>> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  /** The upstream refused the one held: the next fetch must not be served from the library's own cache. */
  private forceNext = false;
  /** Fetches made (tests and metrics: a refresh under load counts once). */
  fetches = 0;
  private readonly marginMs: number;
  private readonly retryMs: number;
  private readonly minAgeMs: number;
  private readonly now: () => number;

  constructor(
    /** `forced`: the credential held was refused, so a library that caches must fetch anew rather than hand it back. */
    private readonly fetch: (forced: boolean) => Promise<Expiring<Value>>,
    options: RefreshingCredentialOptions = {},
  ) {
    this.marginMs = options.marginMs ?? 5 * 60_000;
    this.retryMs = options.retryMs ?? 10_000;
    this.minAgeMs = options.minAgeMs ?? 30_000;
    this.now = options.now ?? Date.now;
  }

  /**
   * The credential: the one held while it is good for a while yet, else one fetch shared by every caller
   * waiting. One about to expire is sent only if no new one can be had: a request signed with it could
   * reach the cloud after its expiry (and the cloud's clock is not this one's).
   */
  async get(): Promise<Value> {
    const held = this.held;
    if (held && (held.expiresAtMs === undefined || held.expiresAtMs - this.skewMs(held) > this.now())) return held.value;
    try {
      return (await this.refresh()).value;
    } catch (error) {
      if (held?.expiresAtMs !== undefined && held.expiresAtMs > this.now()) return held.value;
      throw error;
    }
  }

  /** How long before its expiry a credential is replaced on demand: 10 s, or a quarter of a shorter life. */
  private skewMs(held: { expiresAtMs?: number; fetchedAtMs: number }): number {
    return Math.min(EXPIRY_SKEW_MS, ((held.expiresAtMs ?? 0) - held.fetchedAtMs) / 4);
  }

  /** Forgets the credential held (the upstream refused it), unless it was fetched within minAgeMs: the next call fetches a new one. */
  invalidate(): void {
    if (!this.held || this.now() - this.held.fetchedAtMs < this.minAgeMs) return;
    this.held = undefined;
    this.forceNext = true;
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
  }

  private refresh(): Promise<Expiring<Value>> {
    this.fetching ??= this.fetchOnce().finally(() => (this.fetching = undefined));
    return this.fetching;
  }

  private async fetchOnce(): Promise<Expiring<Value>> {
    this.fetches++;
    const forced = this.forceNext;
    this.forceNext = false;
    let fresh: Expiring<Value>;
    try {
      fresh = await this.fetch(forced);
    } catch (error) {
      if (forced) this.forceNext = true;
      // Only the error's kind: a library's message may quote what a token endpoint answered.
      throw error instanceof UpstreamCredentialsError
        ? error
        : new UpstreamCredentialsError(`the credential could not be fetched (${errorKind(error)})`, { cause: error });
    }
    this.held = { ...fresh, fetchedAtMs: this.now() };
    this.schedule(fresh.expiresAtMs === undefined ? undefined : this.refreshIn(fresh.expiresAtMs - this.now()));
    return fresh;
  }

  /** The margin before expiry; for a credential that lives less than the margin, half its life (at least a second). */
  private refreshIn(remainingMs: number): number {
    return remainingMs > 2 * this.marginMs ? remainingMs - this.marginMs : Math.max(1_000, remainingMs / 2);
  }

  /** The next background refresh, `inMs` from now. */
  private schedule(inMs: number | undefined): void {
    clearTimeout(this.timer);
    if (this.closed || inMs === undefined) return;
    this.timer = setTimeout(
      () =>
        void this.refresh().catch(() => {
          // The one held stays in use until it expires; try again soon.
          const held = this.held;
          if (held?.expiresAtMs !== undefined && held.expiresAtMs > this.now()) this.schedule(this.retryMs);
        }),
      Math.max(0, inMs),
    );
    this.timer.unref();
  }
}

/** An error's class name when it is a plain identifier, for logs that must hold nothing else. */
export const errorKind = (error: unknown): string =>
  error instanceof Error && /^[A-Za-z][A-Za-z0-9_]*$/.test(error.name) ? error.name : "unknown_error";
