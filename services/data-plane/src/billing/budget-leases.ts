// Budget leases (docs/money.md, "Budget leases"). A busy project's requests set
// their worst case aside, in memory, from a lease this data plane holds at the
// control plane, instead of a Reserve round trip each; their debits are drawn
// from the lease (DrawBatcher). A lease is an ordinary hold at the control
// plane; this class keeps how much of it requests in flight have set aside.
// Quiet projects and anything a lease cannot cover reserve per request.
import type { TraceSpan } from "@gateway/proto/tracing";
import { randomUUID } from "node:crypto";
import type { ControlPlaneClientWrapper } from "../control-plane/control-plane-client";
import { ProjectRates } from "../project-rates";

export interface LeaseSettings {
  /** A project is busy, and gets a lease, from this many requests within one second; 0 = never. */
  minRequestsPerSecond: number;
  /** A lease is sized for this many requests like the one that asked for it. */
  requestsPerLease: number;
  /** A lease takes new requests for at most this long after it was granted. */
  maxAgeMs: number;
  /** A lease no request took from for this long goes back. */
  idleMs: number;
  /** Draws go to the control plane at most this often, together (draw-batcher.ts). */
  drawIntervalMs: number;
}

export interface Lease {
  readonly id: string;
  readonly projectId: string;
  /** What the lease holds at the control plane minus what requests in flight have set aside. */
  remaining: bigint;
  /** What the control plane granted. */
  readonly grantedNano: bigint;
  /** Requests that set money aside from it and have not drawn or given it back yet. */
  inFlight: number;
  /** What those requests set aside: all a retired lease still needs at the control plane. */
  setAsideNano: bigint;
  /** A retired lease: what it was last reduced to keep, and when. */
  keptNano?: bigint;
  reducedAt?: number;
  readonly grantedAt: number;
  /**
   * Until then (performance.now()) the control plane surely still holds the lease (half its TTL from
   * before it was asked for, whatever draws extend it by): a draw debits exactly its request's cost,
   * capped at what the request set aside, so the answer need not wait for it (request-billing.ts).
   * 0 once the control plane answered a reduce by closing the lease whole.
   */
  certainUntil: number;
  lastUsedAt: number;
  /** Takes no new requests; reduced to what its requests in flight set aside, released once the last one is done. */
  retired: boolean;
  /** Its control plane takes draws as entries (LeaseResponse.draw_entries): each draw is encoded once. */
  readonly drawEntries?: boolean;
}

/** After a refused or failed lease, the project reserves per request for this long before asking again. */
const RETRY_LEASE_AFTER_MS = 1000;
/**
 * A project busy within this long is still taken as busy when a burst comes: the burst's second
 * request within a second asks for the next lease, and the burst waits for that one answer instead of
 * each request reserving on its own (docs/money.md). A lone request does not ask; a refused or failed
 * ask forgets the project's busy past.
 */
const BUSY_MEMORY_MS = 60_000;
const BURST_REQUESTS = 2;
/**
 * A retired lease is reduced again at most this often (the sweeper catches up): its short requests
 * finish together under load, and a Release call per halving would outnumber the draws.
 */
const REDUCE_AGAIN_AFTER_MS = 1000;

/**
 * What a retired lease keeps for its requests in flight: what they set aside, at least 1 nano-USD
 * (requests whose debit is 0 still have draws to land, and a keep of 0 would close the lease whole).
 */
const keepOf = (lease: Lease): bigint => (lease.setAsideNano > 0n ? lease.setAsideNano : 1n);

export class BudgetLeases {
  /** By project: the lease new requests take from. */
  private readonly current = new Map<string, Lease>();
  /** Retired leases with requests still in flight. */
  private readonly retiring = new Set<Lease>();
  private readonly asking = new Map<string, Promise<void>>(); // project → its ask under way
  private readonly generation = new Map<string, number>();
  private readonly notBefore = new Map<string, number>();
  private readonly rates = new ProjectRates();
  /** When each project was last busy (Date.now()), kept for BUSY_MEMORY_MS. */
  private readonly lastBusyAt = new Map<string, number>();
  private readonly sweeper: NodeJS.Timeout | undefined;
  private closed = false;

  /** Told of each lease granted, with the TTL it was granted for (request-billing.ts renews it while it holds money). */
  onGranted: (lease: Lease, ttlSeconds: number) => void = () => {};

  /** Requests whose worst case came out of a lease, and leases granted (metrics). */
  readonly stats = { leasedRequests: 0, granted: 0, refused: 0 };

  constructor(
    private readonly controlPlane: Pick<ControlPlaneClientWrapper, "lease">,
    private readonly settings: LeaseSettings,
    private readonly replicaId: string,
    /**
     * Gives a retired lease's money back: all of it when `keepNano` is 0 (a Release of the lease id,
     * retried until it lands), else what it holds above `keepNano` (best effort: the final release
     * gives back the rest in any case).
     */
    private readonly giveBack: (lease: Lease, keepNano: bigint) => void,
  ) {
    if (settings.minRequestsPerSecond > 0) {
      this.sweeper = setInterval(() => this.sweep(), Math.max(100, Math.min(settings.idleMs, settings.maxAgeMs) / 2));
      this.sweeper.unref();
    }
  }

  /** Resolves once every lease ask under way has been answered (shutdown: a late grant goes straight back). */
  async asked(): Promise<void> {
    await Promise.allSettled([...this.asking.values()]);
  }

  /** Leases holding money now (taking requests or with requests in flight). */
  get openCount(): number {
    return this.current.size + this.retiring.size;
  }

  /**
   * Sets `needNano` aside from the project's lease, or returns undefined: the caller waits for the
   * lease ask under way (`askUnderWay`) if there is one, else reserves with the control plane.
   */
  take(projectId: string, needNano: bigint, span?: TraceSpan): Lease | undefined {
    if (this.settings.minRequestsPerSecond <= 0 || this.closed) return undefined;
    const now = Date.now();
    const { thisSecond } = this.rates.count(projectId, now);
    const busy = thisSecond >= this.settings.minRequestsPerSecond;
    if (busy) this.lastBusyAt.set(projectId, now);
    const lease = this.fromCurrent(projectId, needNano, now, true, span);
    if (lease) return lease;
    const burstOfBusy = thisSecond >= BURST_REQUESTS && now - (this.lastBusyAt.get(projectId) ?? -Infinity) < BUSY_MEMORY_MS;
    if (busy || burstOfBusy) this.ask(projectId, needNano, now, span);
    return undefined;
  }

  /** The project's lease ask under way, if any; it resolves (never rejects) once the answer is in, granted or not. */
  askUnderWay(projectId: string): Promise<void> | undefined {
    return this.asking.get(projectId);
  }

  /**
   * After waiting for an ask: `take` without counting the request again. A request the new lease
   * cannot cover reserves on its own and leaves the lease to the rest of the burst (retiring it would
   * send them all to per-request reserves).
   */
  takeAfterAsk(projectId: string, needNano: bigint): Lease | undefined {
    return this.closed ? undefined : this.fromCurrent(projectId, needNano, Date.now(), false);
  }

  /** `span`: the request's money span; a Lease call it starts is traced under it. */
  private fromCurrent(projectId: string, needNano: bigint, now: number, retireUnfit: boolean, span?: TraceSpan): Lease | undefined {
    const lease = this.current.get(projectId);
    if (!lease) return undefined;
    if (lease.remaining < needNano || now - lease.grantedAt > this.settings.maxAgeMs) {
      if (retireUnfit) this.retire(lease);
      return undefined;
    }
    lease.remaining -= needNano;
    lease.setAsideNano += needNano;
    lease.inFlight++;
    lease.lastUsedAt = now;
    this.stats.leasedRequests++;
    // A quarter of its money or its time left: the next lease is asked for now, so a busy
    // project's requests do not fall back to per-request reserves while it comes.
    if (lease.remaining * 4n < lease.grantedNano || (now - lease.grantedAt) * 4 > this.settings.maxAgeMs * 3)
      this.ask(projectId, needNano, now, span);
    return lease;
  }

  /**
   * A request under `lease` knows its debit (`keepNano`, at most its share) and draws it: the rest
   * of its share is the lease's again now, not only once the draw has landed.
   */
  shrink(lease: Lease, needNano: bigint, keepNano: bigint): void {
    lease.setAsideNano -= needNano - keepNano;
    lease.remaining += needNano - keepNano;
    if (lease.retired) this.reduceIfHalved(lease);
  }

  /** A request under `lease` is done: `debitedNano` of its share was drawn (0 when released), the rest is the lease's again. */
  finish(lease: Lease, needNano: bigint, debitedNano: bigint): void {
    lease.inFlight--;
    lease.setAsideNano -= needNano;
    lease.remaining += needNano - debitedNano;
    if (!lease.retired) return;
    if (lease.inFlight === 0) this.end(lease);
    else this.reduceIfHalved(lease);
  }

  /** The project changed (cap, balance adjustment, limits): its lease goes back, the next one is granted under the new terms. */
  projectChanged(projectId: string): void {
    this.generation.set(projectId, (this.generation.get(projectId) ?? 0) + 1);
    const lease = this.current.get(projectId);
    if (lease) this.retire(lease);
  }

  /**
   * Shutdown: no new leases; every lease goes back once its requests are done. The sweeper runs on
   * until then, so retired leases are still reduced as their requests finish during the drain.
   */
  close(): void {
    this.closed = true;
    for (const lease of [...this.current.values()]) this.retire(lease);
    if (this.retiring.size === 0) clearInterval(this.sweeper);
  }

  private ask(projectId: string, needNano: bigint, now: number, span?: TraceSpan): void {
    if (this.asking.has(projectId) || (this.notBefore.get(projectId) ?? 0) > now || needNano <= 0n) return;
    const generation = this.generation.get(projectId) ?? 0;
    const id = `lease:${this.replicaId}:${randomUUID()}`;
    const wanted = needNano * BigInt(this.settings.requestsPerLease);
    const askedAt = performance.now();
    // A lease smaller than two such requests saves nothing over reserving per request.
    const ask = this.controlPlane
      .lease(id, projectId, wanted, needNano * 2n, span)
      .then((answer) => {
        this.asking.delete(projectId);
        if (!answer.granted) {
          this.stats.refused++;
          this.notBefore.set(projectId, Date.now() + RETRY_LEASE_AFTER_MS);
          this.lastBusyAt.delete(projectId);
          return;
        }
        this.stats.granted++;
        const granted = Date.now();
        const amount = BigInt(answer.amountNano);
        const certainUntil = askedAt + (answer.ttlSeconds * 1000) / 2;
        const lease: Lease = {
          id,
          projectId,
          remaining: amount,
          grantedNano: amount,
          inFlight: 0,
          setAsideNano: 0n,
          grantedAt: granted,
          certainUntil,
          lastUsedAt: granted,
          retired: false,
          drawEntries: answer.drawEntries === true,
        };
        const previous = this.current.get(projectId);
        if (previous) this.retire(previous);
        this.current.set(projectId, lease);
        this.onGranted(lease, answer.ttlSeconds);
        // Granted under terms that changed meanwhile, or during shutdown: straight back.
        if (this.closed || (this.generation.get(projectId) ?? 0) !== generation) this.retire(lease);
      })
      .catch(() => {
        // Unreachable, slow or unreadable: the lease may have been granted all the same, so it is
        // released (for a lease never granted that changes nothing) rather than held until it expires.
        // The promise never rejects: requests wait on it (askUnderWay).
        this.asking.delete(projectId);
        this.notBefore.set(projectId, Date.now() + RETRY_LEASE_AFTER_MS);
        this.lastBusyAt.delete(projectId);
        this.giveBack(
          {
            id,
            projectId,
            remaining: 0n,
            grantedNano: 0n,
            inFlight: 0,
            setAsideNano: 0n,
            grantedAt: 0,
            certainUntil: 0,
            lastUsedAt: 0,
            retired: true,
          },
          0n,
        );
      });
    this.asking.set(projectId, ask);
  }

  private retire(lease: Lease): void {
    if (lease.retired) return;
    lease.retired = true;
    if (this.current.get(lease.projectId) === lease) this.current.delete(lease.projectId);
    this.retiring.add(lease);
    if (lease.inFlight === 0) this.end(lease);
    else this.reduce(lease);
  }

  /**
   * Its requests in flight may run for minutes (long streams): until they are done, a retired lease
   * holds only what they set aside, so that retired leases do not pile up holding what new requests
   * (of this replica or another) need. A reduce never raises a lease, so their order does not matter.
   */
  private reduce(lease: Lease): void {
    lease.keptNano = keepOf(lease);
    lease.reducedAt = Date.now();
    lease.remaining = 0n;
    this.giveBack(lease, lease.keptNano);
  }

  /**
   * Reduced again as its requests finish (each time what they keep has halved, so a few calls per
   * lease): one long stream must not keep the shares of the many short requests done since.
   */
  private reduceIfHalved(lease: Lease): void {
    if (lease.keptNano === undefined || keepOf(lease) * 2n > lease.keptNano) return;
    if (Date.now() - (lease.reducedAt ?? 0) >= REDUCE_AGAIN_AFTER_MS) this.reduce(lease);
  }

  private end(lease: Lease): void {
    this.retiring.delete(lease);
    this.giveBack(lease, 0n);
  }

  private sweep(): void {
    if (this.closed && this.retiring.size === 0) {
      clearInterval(this.sweeper);
      return;
    }
    const now = Date.now();
    for (const lease of [...this.current.values()]) {
      if (now - lease.lastUsedAt > this.settings.idleMs || now - lease.grantedAt > this.settings.maxAgeMs) this.retire(lease);
    }
    for (const lease of this.retiring) this.reduceIfHalved(lease);
    this.rates.prune(now);
    for (const [projectId, at] of this.lastBusyAt) if (now - at >= BUSY_MEMORY_MS) this.lastBusyAt.delete(projectId);
    for (const [projectId, until] of this.notBefore) if (until <= now) this.notBefore.delete(projectId);
  }
}
