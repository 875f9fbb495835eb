// The draw journal (docs/money.md, "A killed data plane"). An answer under a budget lease does not
// wait for its draw to reach the ledger; so that a data plane killed in that window does not lose the
// debit, the draw is first written to Redis, outside this process, and only then does the answer
// leave. The control plane reads the journal of a lease that expired (its data plane died) and applies
// the draws that never reached the ledger, each once (draws are idempotent by request id).
// Concurrent appends share one Redis round trip (auto-pipelining). An append Redis fails or does not
// take within REDIS_TIMEOUT_MS trips the journal's circuit (redis-circuit.ts): until a probe sees Redis
// answer in time, appends are not sent. Those entries, and the late ones, go to the local file
// (local-draw-journal.ts) instead, so a hung Redis costs one timeout, not one per answer, and no answer
// waits for its draw while Redis is away (decision 0011). Without the file, such an answer waits for its draw.
import { DRAW_JOURNAL_KEEP_MS, drawJournalKey } from "@gateway/proto";
import { Redis } from "ioredis";
import type { DrawCall } from "../control-plane/control-plane-client";
import { inTime, REDIS_TIMEOUT_MS, RedisCircuit } from "../redis-circuit";
import { journalEntryOf, type LocalDrawJournal } from "./local-draw-journal";

export interface DrawJournalStats {
  /** Kept in Redis before the answer left. */
  kept: number;
  /** Written to the local file instead (Redis failed, was late, or its circuit is open) before the answer left. */
  keptLocally: number;
  /** Kept nowhere (Redis away and the file unwritable, or none): those answers waited for their draws. */
  failed: number;
  /** Of the above, not sent to Redis, the circuit being open. */
  bypassed: number;
  /** Entries a predecessor on the local file's directory left, drawn again at start. */
  recovered: number;
}

export interface DrawJournal {
  /** Resolves true once the draw is kept outside this process; false if it could not be (the answer must wait for the draw). */
  append(draw: DrawCall): Promise<boolean>;
  /** The draw reached the ledger: a local entry of it need not be kept. */
  landed(requestId: string): void;
  /** The lease was released: its journal is not needed any more. */
  forget(leaseId: string): void;
  /** Draws a predecessor on the local file's directory answered; the caller draws them (once each). */
  takeRecovered(): DrawCall[];
  close(): Promise<void>;
  readonly stats: DrawJournalStats;
  /** For /health detail: "redis", or "file (...)" / "bypassed (...)" while the circuit is open. */
  readonly mode: string;
  /** Open while Redis failed or was late and no probe has seen it answer since. */
  readonly circuit: { readonly open: boolean };
}

const MAX_TRACKED_LEASES = 100_000;

export class RedisDrawJournal implements DrawJournal {
  private readonly redis: Redis;
  readonly stats: DrawJournalStats = { kept: 0, keptLocally: 0, failed: 0, bypassed: 0, recovered: 0 };
  /** Leases whose journal has its expiry set: one PEXPIRE per lease, not one per answer (half the commands). */
  private readonly expiring = new Set<string>();
  /** Open: appends are not sent, a probe is (docs/money.md, "Journal store down or slow"). */
  readonly circuit: RedisCircuit;
  /** Appends sent and not answered yet: once one is late, the others stop waiting too (they wait on the same Redis). */
  private readonly inFlight = new Set<(kept: boolean) => void>();

  /** @param local where entries go while Redis is away (none: their answers wait for their draws). */
  constructor(
    url: string,
    private readonly local?: LocalDrawJournal,
    onCircuitChange: (open: boolean) => void = () => {},
  ) {
    this.redis = new Redis(url, {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      enableAutoPipelining: true,
      commandTimeout: 2_000,
      connectTimeout: 1_000,
      retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
    });
    this.circuit = new RedisCircuit(() => this.redis.ping(), {
      onChange: (open) => {
        if (open) for (const done of [...this.inFlight]) done(false);
        onCircuitChange(open);
      },
    });
    this.redis.on("error", () => this.circuit.trip()); // connection lost: appends would fail at once meanwhile
    this.stats.recovered = local?.stats.recovered ?? 0;
  }

  get mode(): string {
    if (!this.circuit.open) return "redis";
    return this.local
      ? `file (Redis unreachable or late: leased debits go to the local file${this.local.mode === "file" ? "" : `, which is ${this.local.mode}`})`
      : "bypassed (Redis unreachable or late: leased answers wait for their draws)";
  }

  append(draw: DrawCall): Promise<boolean> {
    if (this.circuit.open) {
      this.stats.bypassed++;
      return Promise.resolve(this.keepLocally(draw));
    }
    const key = drawJournalKey(draw.leaseId);
    const entry = journalEntryOf(draw);
    return new Promise((resolve) => {
      let settled = false;
      const done = (kept: boolean) => {
        if (settled) return;
        settled = true;
        this.inFlight.delete(done);
        if (kept) this.stats.kept++;
        resolve(kept || this.keepLocally(draw));
      };
      this.inFlight.add(done);
      const sentAt = performance.now();
      inTime(this.redis.hset(key, draw.requestId, entry), () => sentAt + REDIS_TIMEOUT_MS).then(
        () => done(true),
        () => {
          done(false);
          this.circuit.trip();
        },
      );
      if (!this.expiring.has(draw.leaseId)) {
        if (this.expiring.size >= MAX_TRACKED_LEASES) this.expiring.clear(); // leases never forgotten (a lost release): set again
        this.expiring.add(draw.leaseId);
        // Days beyond any lease's life; the entry is kept either way. Not acknowledged: set it again next time.
        this.redis.pexpire(key, DRAW_JOURNAL_KEEP_MS).catch(() => this.expiring.delete(draw.leaseId));
      }
    });
  }

  landed(requestId: string): void {
    this.local?.landed(requestId);
  }

  forget(leaseId: string): void {
    this.expiring.delete(leaseId);
    this.redis.del(drawJournalKey(leaseId)).catch(() => {}); // else it expires (DRAW_JOURNAL_KEEP_MS)
  }

  takeRecovered(): DrawCall[] {
    return this.local?.takeRecovered() ?? [];
  }

  async close(): Promise<void> {
    this.circuit.stop();
    await this.redis.quit().catch(() => this.redis.disconnect());
    this.local?.close();
  }

  /** Redis did not keep it: the local file, if it can. */
  private keepLocally(draw: DrawCall): boolean {
    if (this.local?.appendNow(draw)) {
      this.stats.keptLocally++;
      return true;
    }
    this.stats.failed++;
    return false;
  }
}
