// The draw journal (docs/money.md, "A killed data plane"; decision 0006). An answer under a budget
// lease does not wait for its draw to reach the ledger; so that a data plane killed in that window
// does not lose the debit, the draw is first written to a local append-only file (journal-segments.ts)
// and only then does the answer leave. A data plane started again on the same directory draws what
// its predecessor left there (request-billing.ts; draws are idempotent by request id). With Redis,
// each entry is also copied there within milliseconds, behind the answer (journal-replicator.ts), for
// the control plane's reconciler: what a pod deleted with its volume, or a lost node, leaves behind.
// The entry is encoded once: the line in the file is the value in Redis.
import { decodeJournalEntry, encodeJournalEntry } from "@gateway/proto";
import type { DrawCall } from "../control-plane/control-plane-client";
import { JournalReplicator } from "./journal-replicator";
import { DEFAULT_SEGMENT_LIMITS, JournalSegments, type Segment, type SegmentLimits } from "./journal-segments";

export interface DrawJournalStats {
  /** Written to the local file before the answer left. */
  kept: number;
  /** Not written (the file system failed, or the journal is at its bound): those answers waited for their draws. */
  failed: number;
  /** Copied to Redis (acknowledged). */
  replicated: number;
  /** Entries a predecessor on this directory left, drawn again at start. */
  recovered: number;
}

export interface DrawJournal {
  /** Resolves true once the draw is kept outside this process's memory; false if it could not be (the answer must wait for the draw). */
  append(draw: DrawCall): Promise<boolean>;
  /** The draw reached the ledger: its entry need not be kept, nor copied. */
  landed(requestId: string): void;
  /** The lease was released: its journal is not needed any more. */
  forget(leaseId: string): void;
  /** Draws a predecessor on this journal's directory answered; the caller draws them (once each, idempotent by request id). */
  takeRecovered(): DrawCall[];
  close(): Promise<void>;
  readonly stats: DrawJournalStats;
  /** For /health detail: "file+redis", "file (...)" while Redis is away, "file" without Redis. */
  readonly mode: string;
  /** Open while the copy to Redis failed or was late and no probe has seen it answer since. */
  readonly circuit: { readonly open: boolean };
}

/** What a journal line holds, as the draw it was written from. */
function drawOf(text: string): DrawCall | undefined {
  const entry = decodeJournalEntry(text);
  if (!entry) return undefined;
  return {
    requestId: entry.requestId,
    leaseId: entry.leaseId,
    projectId: entry.projectId,
    amountNano: BigInt(entry.amountNano),
    holdNano: BigInt(entry.holdNano),
    model: entry.model,
    accessPath: entry.accessPath,
    inputTokens: entry.inputTokens,
    outputTokens: entry.outputTokens,
    costParts: entry.costParts.map((part) => ({ component: part.component, units: part.units, nano: BigInt(part.nano) })),
    ...(entry.keyId ? { keyId: entry.keyId } : {}),
  };
}

export interface LocalDrawJournalOptions {
  /** This data plane's own directory (DRAW_JOURNAL_DIR/<replica id>). */
  dir: string;
  /** Where entries are copied for the control plane; none: the local file alone. */
  redisUrl?: string;
  onCircuitChange?: (open: boolean) => void;
  limits?: SegmentLimits;
}

export class LocalDrawJournal implements DrawJournal {
  readonly stats: DrawJournalStats = { kept: 0, failed: 0, replicated: 0, recovered: 0 };
  private readonly segments: JournalSegments;
  readonly replicator: JournalReplicator | undefined;
  /** Entries not landed yet, by request id: the segment that holds each. */
  private readonly entries = new Map<string, Segment>();
  private recovered: DrawCall[] = [];
  private writeFailing = false;
  /** Told, for each entry Redis acknowledged, how long after its local append (ms) the ack was read and its batch sent. */
  onReplicated: (ackedMs: number, sentMs: number) => void = () => {};

  constructor(options: LocalDrawJournalOptions) {
    this.segments = new JournalSegments(options.dir, options.limits ?? DEFAULT_SEGMENT_LIMITS);
    this.replicator = options.redisUrl ? new JournalReplicator(options.redisUrl, options.onCircuitChange) : undefined;
    if (this.replicator)
      this.replicator.onReplicated = (ackedMs, sentMs) => {
        this.stats.replicated++;
        this.onReplicated(ackedMs, sentMs);
      };
    for (const { segment, lines } of this.segments.recover()) {
      for (const line of lines) {
        const draw = drawOf(line);
        if (!draw || this.entries.has(draw.requestId)) continue; // unreadable (never answered), or twice
        this.entries.set(draw.requestId, segment);
        this.segments.counted(segment);
        this.recovered.push(draw);
        // Copied again: the predecessor may have died before its copy; the same field again changes nothing.
        this.replicator?.push(draw.requestId, draw.leaseId, line);
      }
      this.segments.dropIfEmpty(segment);
    }
    this.stats.recovered = this.recovered.length;
  }

  get mode(): string {
    if (this.writeFailing) return "failing (the local file cannot be written, or is at its bound: leased answers wait for their draws)";
    if (!this.replicator) return "file";
    return this.replicator.circuit.open ? "file (Redis unreachable or late: entries are copied once a probe sees it answer)" : "file+redis";
  }

  get circuit(): { readonly open: boolean } {
    return this.replicator?.circuit ?? { open: false };
  }

  /** Bytes and segment files on disk now (the bound: docs/money.md). */
  get disk(): { bytes: number; segments: number } {
    return { bytes: this.segments.bytes, segments: this.segments.count };
  }

  /** Batches of copies Redis failed or took too long for. */
  get failedBatches(): number {
    return this.replicator?.stats.failedBatches ?? 0;
  }

  /** Entries not copied to Redis nor landed yet. */
  get backlog(): number {
    return this.replicator?.backlog ?? 0;
  }

  append(draw: DrawCall): Promise<boolean> {
    return Promise.resolve(this.appendNow(draw));
  }

  /** The write itself, synchronous: true once the line is in the file (the kernel's page cache). */
  appendNow(draw: DrawCall): boolean {
    const text = encodeJournalEntry({
      requestId: draw.requestId,
      leaseId: draw.leaseId,
      projectId: draw.projectId,
      amountNano: draw.amountNano.toString(),
      holdNano: draw.holdNano.toString(),
      model: draw.model,
      accessPath: draw.accessPath,
      inputTokens: draw.inputTokens,
      outputTokens: draw.outputTokens,
      costParts: (draw.costParts ?? []).map((part) => ({ component: part.component, units: part.units, nano: part.nano.toString() })),
      ...(draw.keyId ? { keyId: draw.keyId } : {}),
    });
    let segment: Segment;
    try {
      segment = this.segments.append(`${text}\n`);
    } catch {
      this.stats.failed++;
      this.writeFailing = true;
      return false;
    }
    this.writeFailing = false;
    this.stats.kept++;
    this.entries.set(draw.requestId, segment);
    this.replicator?.push(draw.requestId, draw.leaseId, text);
    return true;
  }

  landed(requestId: string): void {
    const segment = this.entries.get(requestId);
    if (!segment) return;
    this.entries.delete(requestId);
    this.replicator?.drop(requestId);
    this.segments.landed(segment);
  }

  forget(leaseId: string): void {
    this.replicator?.forget(leaseId);
  }

  takeRecovered(): DrawCall[] {
    const draws = this.recovered;
    this.recovered = [];
    return draws;
  }

  async close(): Promise<void> {
    await this.replicator?.close();
    this.segments.close();
  }
}
