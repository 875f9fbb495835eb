// The draw journal's fallback while Redis is away (docs/money.md, "Journal store down or slow";
// decision 0011): a leased debit Redis did not take in time, or that was not sent because the
// journal's circuit is open, is written to an append-only file on this data plane's own disk
// (journal-segments.ts) before its answer leaves, so a paused or dead Redis costs the answers nothing
// and a SIGKILL still loses no debit. A data plane started again on the same directory draws what its
// predecessor left there (RequestBilling.replayRecovered; draws are idempotent by request id).
// The line in the file is the entry Redis would have held (proto/src/draw-journal.ts).
import { decodeDrawEntry, encodeOlderEntry } from "@gateway/proto";
import type { DrawCall } from "../control-plane/control-plane-client";
import { DEFAULT_SEGMENT_LIMITS, JournalSegments, type Segment, type SegmentLimits } from "./journal-segments";

/**
 * A draw as the journal holds it, the same text in Redis and in the file: its entry (the bytes its Draw
 * sends), or the older form for a lease whose control plane predates entries.
 */
export const journalEntryOf = (draw: DrawCall): string => draw.entry ?? encodeOlderEntry(draw);

/** A journal line as a draw, drawn again as fields: whatever the control plane's version, it takes those. */
function drawOf(line: string): DrawCall | undefined {
  const entry = decodeDrawEntry(line);
  if (!entry) return undefined;
  const { text: _, ...fields } = entry;
  return fields;
}

export interface LocalDrawJournalStats {
  /** Written to the file before the answer left. */
  kept: number;
  /** Not written (the file system failed, or the file is at its bound): those answers waited for their draws. */
  failed: number;
  /** Entries a predecessor on this directory left, drawn again at start. */
  recovered: number;
}

export class LocalDrawJournal {
  readonly stats: LocalDrawJournalStats = { kept: 0, failed: 0, recovered: 0 };
  private readonly segments: JournalSegments;
  /** Entries not landed yet, by request id: the segment that holds each. */
  private readonly entries = new Map<string, Segment>();
  private recovered: DrawCall[] = [];
  private writeFailing = false;

  /** Takes `dir` (this data plane's own: DRAW_JOURNAL_DIR/<replica id>) and reads what a predecessor left in it. */
  constructor(options: { dir: string; limits?: SegmentLimits }) {
    this.segments = new JournalSegments(options.dir, options.limits ?? DEFAULT_SEGMENT_LIMITS);
    for (const { segment, lines } of this.segments.recover()) {
      for (const line of lines) {
        const draw = drawOf(line);
        if (!draw || this.entries.has(draw.requestId)) continue; // unreadable (never answered), or twice
        this.entries.set(draw.requestId, segment);
        this.segments.counted(segment);
        this.recovered.push(draw);
      }
      this.segments.dropIfEmpty(segment);
    }
    this.stats.recovered = this.recovered.length;
  }

  /** "file", or "failing (...)" while the file cannot be written or is at its bound. */
  get mode(): string {
    return this.writeFailing
      ? "failing (the local file cannot be written, or is at its bound: leased answers wait for their draws)"
      : "file";
  }

  /** Bytes and segment files on disk now (the bound: docs/money.md). */
  get disk(): { bytes: number; segments: number } {
    return { bytes: this.segments.bytes, segments: this.segments.count };
  }

  /** One write(2), synchronous: true once the line is in the file (the kernel's page cache outlives this process). */
  appendNow(draw: DrawCall): boolean {
    let segment: Segment;
    try {
      segment = this.segments.append(`${journalEntryOf(draw)}\n`);
    } catch {
      this.stats.failed++;
      this.writeFailing = true;
      return false;
    }
    this.writeFailing = false;
    this.stats.kept++;
    this.entries.set(draw.requestId, segment);
    return true;
  }

  /** The draw reached the ledger: its entry need not be kept (a segment goes once all of its have). */
  landed(requestId: string): void {
    const segment = this.entries.get(requestId);
    if (!segment) return;
    this.entries.delete(requestId);
    this.segments.landed(segment);
  }

  /** Draws a predecessor on this directory answered; the caller draws them (once each, idempotent by request id). */
  takeRecovered(): DrawCall[] {
    const draws = this.recovered;
    this.recovered = [];
    return draws;
  }

  close(): void {
    this.segments.close();
  }
}
