// Copies the draw journal's entries to Redis behind the answers (docs/money.md, "A killed data
// plane"), in the format the control plane's reconciler reads (one hash per lease, field = request
// id; proto/src/draw-journal.ts): a pod deleted or a node lost takes its local file with it, and the
// reconciler applies what reached Redis. The entries appended within a couple of milliseconds go
// together, without waiting for the batch before to be acknowledged (schedule() says when). Nothing
// waits for it: a batch Redis fails or does not take within REDIS_TIMEOUT_MS trips the circuit
// (redis-circuit.ts), its entries go back in the queue, and the queue is sent again once a probe sees
// Redis answer. An entry whose draw landed first is not sent at all: the ledger has it.
import { DRAW_JOURNAL_KEEP_MS, drawJournalKey } from "@gateway/proto";
import { Redis } from "ioredis";
import { inTime, REDIS_TIMEOUT_MS, RedisCircuit } from "../redis-circuit";

interface Queued {
  leaseId: string;
  text: string;
  /** performance.now() when its local append returned. */
  appendedAt: number;
}

/** Entries per batch at most (one pipeline: an HSET and a PEXPIRE per lease in it). */
const MAX_BATCH = 1024;
/** Batches sent and not answered yet, at most: a hung Redis holds no more than these. */
export const MAX_IN_FLIGHT = 64;
/** A batch goes right after the callback that appended once this long has passed since the last one. */
const SEND_EVERY_MS = 2;
const MAX_TRACKED_LEASES = 100_000;

export class JournalReplicator {
  private readonly redis: Redis;
  readonly circuit: RedisCircuit;
  /** By request id: entries not sent yet, and entries of batches in flight (back in the queue if theirs fails). */
  private readonly queue = new Map<string, Queued>();
  private readonly inFlight = new Map<string, Queued>();
  /** A send is due right after the current callback (soon), or at the end of this turn (later). */
  private soon = false;
  private later = false;
  /** performance.now() when the last batch went. */
  private lastSentAt = -Infinity;
  /** Leases whose hash has its expiry set: one PEXPIRE per lease, not one per batch. */
  private readonly expiring = new Set<string>();
  /** Batches sent and not answered yet. */
  private sending = 0;
  private readonly flushes = new Set<Promise<void>>();
  private closed = false;
  /** Entries Redis acknowledged; batches that failed or were late. */
  readonly stats = { replicated: 0, failedBatches: 0 };
  /**
   * Told, for each entry Redis acknowledged, how long after its local append (ms) the acknowledgement
   * was read, and how long after it its batch was written to the socket: a pod deleted with its volume
   * loses what it appended within the first (the window ends between the two).
   */
  onReplicated: (ackedMs: number, sentMs: number) => void = () => {};

  constructor(url: string, onCircuitChange: (open: boolean) => void = () => {}) {
    this.redis = new Redis(url, {
      // Fail fast instead of queueing in the client: the entries wait in this queue, which knows what landed.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: 2_000,
      connectTimeout: 1_000,
      retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
    });
    this.circuit = new RedisCircuit(() => this.redis.ping(), {
      onChange: (open) => {
        if (open)
          this.expiring.clear(); // the Redis that comes back may have lost its hashes: expiries are set again
        else this.schedule(); // what was written while Redis was away goes now
        onCircuitChange(open);
      },
    });
    this.redis.on("error", () => this.circuit.trip());
  }

  /** Entries neither in Redis nor landed yet (queued, or in a batch in flight). */
  get backlog(): number {
    return this.queue.size + this.inFlight.size;
  }

  push(requestId: string, leaseId: string, text: string, appendedAt = performance.now()): void {
    this.queue.set(requestId, { leaseId, text, appendedAt });
    this.schedule();
  }

  /** Its draw is on the ledger: no need to send it (one in flight is sent all the same; it is a replay to the reconciler). */
  drop(requestId: string): void {
    this.queue.delete(requestId);
    this.inFlight.delete(requestId);
  }

  /**
   * The lease was released (all its draws landed): its hash goes. Sent on the same connection after
   * any batch already sent, so no HSET of it arrives after the DEL; if it is lost, the hash expires.
   */
  forget(leaseId: string): void {
    this.expiring.delete(leaseId);
    for (const [requestId, entry] of this.queue) if (entry.leaseId === leaseId) this.queue.delete(requestId);
    if (!this.circuit.open) this.redis.del(drawJournalKey(leaseId)).catch(() => {});
  }

  /** Shutdown: one last batch if Redis answers (the local file keeps the rest in any case). */
  async close(): Promise<void> {
    await Promise.allSettled([...this.flushes]);
    if (!this.circuit.open && this.queue.size > 0) await this.flush();
    this.closed = true;
    this.circuit.stop();
    await this.redis.quit().catch(() => this.redis.disconnect());
  }

  /**
   * When to send: right after the code that appended (process.nextTick, before the event loop reads
   * another socket) once SEND_EVERY_MS have passed since the last batch went; else at the end of this
   * turn of the event loop (setImmediate), unless an append after SEND_EVERY_MS sends it sooner. On a
   * saturated process a turn lasts tens of milliseconds: sending only at its end lost as many debits
   * as no journal when data planes were killed without a restart, and sending after every callback
   * cost a pipeline per answer (docs/money.md, "The window"). Batches do not wait for the one before to
   * be acknowledged, up to MAX_IN_FLIGHT; beyond, the queue goes as acknowledgements are read.
   */
  private schedule(): void {
    if (this.sending >= MAX_IN_FLIGHT || this.circuit.open || this.closed || this.queue.size === 0) return;
    if (performance.now() - this.lastSentAt >= SEND_EVERY_MS) {
      if (this.soon) return;
      this.soon = true;
      process.nextTick(() => {
        this.soon = false;
        this.send();
      });
    } else if (!this.later) {
      this.later = true;
      setImmediate(() => {
        this.later = false;
        this.send();
      });
    }
  }

  private send(): void {
    if (this.sending >= MAX_IN_FLIGHT || this.circuit.open || this.closed || this.queue.size === 0) return;
    this.sending++;
    this.lastSentAt = performance.now();
    const sent = this.flush().finally(() => {
      this.sending--;
      this.flushes.delete(sent);
      this.schedule();
    });
    this.flushes.add(sent);
  }

  private async flush(): Promise<void> {
    const byLease = new Map<string, string[]>();
    const batch = new Map<string, Queued>();
    for (const [requestId, entry] of this.queue) {
      if (batch.size >= MAX_BATCH) break;
      this.queue.delete(requestId);
      this.inFlight.set(requestId, entry);
      batch.set(requestId, entry);
      const fields = byLease.get(entry.leaseId) ?? [];
      if (fields.length === 0) byLease.set(entry.leaseId, fields);
      fields.push(requestId, entry.text);
    }
    // One HSET per lease, in one pipeline written at once (ioredis's auto-pipelining would wait for the
    // end of the turn), and each hash's expiry once per lease, days beyond any lease's life: set again
    // after a failed batch, so a hash recreated after a lost DEL still expires.
    const pipeline = this.redis.pipeline();
    for (const [leaseId, fields] of byLease) {
      const key = drawJournalKey(leaseId);
      pipeline.hset(key, ...fields);
      if (!this.expiring.has(leaseId)) {
        if (this.expiring.size >= MAX_TRACKED_LEASES) this.expiring.clear(); // leases never forgotten: set again
        this.expiring.add(leaseId);
        pipeline.pexpire(key, DRAW_JOURNAL_KEEP_MS);
      }
    }
    const sentAt = performance.now();
    try {
      const results = await inTime(pipeline.exec(), () => sentAt + REDIS_TIMEOUT_MS);
      const failed = results?.find(([error]) => error);
      if (!results || failed) throw failed?.[0] ?? new Error("Redis answered no results");
      const now = performance.now();
      for (const [requestId, entry] of batch) {
        this.inFlight.delete(requestId);
        this.stats.replicated++;
        this.onReplicated(now - entry.appendedAt, sentAt - entry.appendedAt);
      }
    } catch {
      // Back in the queue, unless landed meanwhile; sent again once a probe sees Redis (HSET of a field again changes nothing).
      for (const [requestId, entry] of batch) {
        if (this.inFlight.delete(requestId)) this.queue.set(requestId, entry);
      }
      for (const leaseId of byLease.keys()) this.expiring.delete(leaseId);
      this.stats.failedBatches++;
      this.circuit.trip();
    }
  }
}
