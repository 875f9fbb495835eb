// The draw journal's local file, written while its Redis is away (docs/money.md, "Journal store down or
// slow"): append-only segment files in one directory that one data plane owns at a time. Each entry is
// one line written by one write(2) before its answer leaves: a SIGKILL cannot lose it (the page cache outlives the process); a lost node
// can (no fsync per answer: docs/money.md has what one would cost). A segment is deleted once every
// entry in it has landed on the ledger; the one being written rotates by size and age, so what stays
// on disk is the segments of draws not landed yet, and never more than `maxBytes`.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

export interface Segment {
  readonly name: string;
  /** Open for appends while this is the current segment. */
  fd: number | undefined;
  bytes: number;
  /** Entries in it whose draw has not landed yet. */
  unlanded: number;
  /** performance.now() when it was opened (the monotonic clock: a step of the wall clock rotates nothing). */
  readonly startedAt: number;
}

export interface SegmentLimits {
  /** The current segment rotates once it holds this much... */
  segmentBytes: number;
  /** ...or is this old (so that a quiet one can be deleted once its draws landed). */
  segmentMs: number;
  /** What the segments may hold in all: an append beyond it is refused (its answer waits for its draw). */
  maxBytes: number;
}

export const DEFAULT_SEGMENT_LIMITS: SegmentLimits = { segmentBytes: 1 << 20, segmentMs: 1_000, maxBytes: 32 << 20 };

const SEGMENT = /^segment-(\d{16})\.jsonl$/;
const OWNER = "owner";

/** A process of this host with that pid runs now (EPERM: it runs, as someone else). */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

export class JournalSegments {
  private current: Segment | undefined;
  private readonly segments = new Set<Segment>();
  private nextNumber = 0;
  private totalBytes = 0;
  private readonly rotation: NodeJS.Timeout;

  /**
   * Takes `dir` (created if need be) for this process: it refuses one that a live process of this host
   * still owns (two data planes with one replica id), and takes over one whose owner died.
   */
  constructor(
    readonly dir: string,
    private readonly limits: SegmentLimits = DEFAULT_SEGMENT_LIMITS,
  ) {
    fs.mkdirSync(dir, { recursive: true });
    const ownerFile = path.join(dir, OWNER);
    const me = `${process.pid} ${os.hostname()}\n`;
    try {
      fs.writeFileSync(ownerFile, me, { flag: "wx" });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const [pid, host] = fs.readFileSync(ownerFile, "utf8").trim().split(" ");
      // A restarted container often has its predecessor's pid: that one is this process, not a live owner.
      if (host === os.hostname() && Number(pid) !== process.pid && running(Number(pid)))
        throw new Error(`the draw journal directory ${dir} belongs to process ${pid}, still running: each data plane needs its own`);
      fs.writeFileSync(`${ownerFile}.${process.pid}`, me);
      fs.renameSync(`${ownerFile}.${process.pid}`, ownerFile);
    }
    this.rotation = setInterval(() => this.rotateIfOld(), limits.segmentMs);
    this.rotation.unref();
  }

  /** What the segments hold on disk now (bytes). */
  get bytes(): number {
    return this.totalBytes;
  }

  /** Segment files on disk now. */
  get count(): number {
    return this.segments.size;
  }

  /**
   * The lines a predecessor on this directory left, segment by segment, oldest first; each segment is
   * kept until `landed` has been called for each entry the caller counted in it (`counted`).
   * A last line cut short (a write that never completed, so its answer never left) is left out.
   */
  recover(): { segment: Segment; lines: string[] }[] {
    const names = fs
      .readdirSync(this.dir)
      .filter((name) => SEGMENT.test(name))
      .sort();
    const found: { segment: Segment; lines: string[] }[] = [];
    for (const name of names) {
      const text = fs.readFileSync(path.join(this.dir, name), "utf8");
      const segment: Segment = { name, fd: undefined, bytes: Buffer.byteLength(text), unlanded: 0, startedAt: performance.now() };
      this.segments.add(segment);
      this.totalBytes += segment.bytes;
      this.nextNumber = Math.max(this.nextNumber, Number(SEGMENT.exec(name)![1]) + 1);
      const lines = text.split("\n");
      lines.pop(); // after the last newline: empty, or a line never completed
      found.push({ segment, lines });
    }
    return found;
  }

  /** An entry of `segment` counted as not landed (recovered ones; appended ones are counted by `append`). */
  counted(segment: Segment): void {
    segment.unlanded++;
  }

  /** Any of `segment`'s entries that were counted are landed: deleted once none is left and it is not written to. */
  landed(segment: Segment): void {
    segment.unlanded--;
    this.dropIfEmpty(segment);
  }

  /** Deletes `segment` if nothing in it waits to land and it is not being written (a predecessor's with every line unreadable, or none). */
  dropIfEmpty(segment: Segment): void {
    if (segment.unlanded <= 0 && segment !== this.current) this.delete(segment);
  }

  /**
   * Writes `line` (ending in "\n") with one write(2) and returns its segment, or throws: the file
   * system failed, or the segments would hold more than `maxBytes` (the caller's answer then waits).
   */
  append(line: string): Segment {
    const bytes = Buffer.byteLength(line);
    if (this.totalBytes + bytes > this.limits.maxBytes)
      throw new Error(`the draw journal holds ${this.totalBytes} bytes of draws not landed: at its bound of ${this.limits.maxBytes}`);
    let segment = this.current;
    if (!segment || segment.bytes >= this.limits.segmentBytes) segment = this.rotate();
    const buffer = Buffer.from(line);
    let written = 0;
    try {
      written = fs.writeSync(segment.fd!, buffer, 0, buffer.length);
      if (written !== buffer.length) throw new Error(`the draw journal wrote ${written} of ${buffer.length} bytes`);
    } catch (error) {
      // A line cut short ends this segment (a reader drops it as the last line), so the next one starts clean.
      segment.bytes += written;
      this.totalBytes += written;
      this.retireCurrent();
      throw error;
    }
    segment.bytes += written;
    this.totalBytes += written;
    segment.unlanded++;
    return segment;
  }

  /**
   * Stops writing: segments whose draws all landed go; the others stay for the next process on this
   * directory, and so does the directory then (else it goes too, unless something else is in it).
   */
  close(): void {
    clearInterval(this.rotation);
    this.retireCurrent();
    for (const segment of [...this.segments]) if (segment.unlanded <= 0) this.delete(segment);
    fs.rmSync(path.join(this.dir, OWNER), { force: true });
    try {
      fs.rmdirSync(this.dir);
    } catch {
      // not empty: draws not landed (or someone else's files) stay
    }
  }

  private rotate(): Segment {
    this.retireCurrent();
    const name = `segment-${String(this.nextNumber++).padStart(16, "0")}.jsonl`;
    const fd = fs.openSync(path.join(this.dir, name), "a");
    const segment: Segment = { name, fd, bytes: 0, unlanded: 0, startedAt: performance.now() };
    this.current = segment;
    this.segments.add(segment);
    return segment;
  }

  /** A segment written to for `segmentMs` stops being current, so it goes once its draws landed. */
  private rotateIfOld(): void {
    if (this.current && performance.now() - this.current.startedAt >= this.limits.segmentMs) this.retireCurrent();
  }

  /** The current segment takes no more appends; it goes at once if all its draws landed. */
  private retireCurrent(): void {
    const current = this.current;
    if (!current) return;
    this.current = undefined;
    if (current.fd !== undefined) fs.closeSync(current.fd);
    current.fd = undefined;
    if (current.unlanded <= 0) this.delete(current);
  }

  private delete(segment: Segment): void {
    if (!this.segments.delete(segment)) return;
    this.totalBytes -= segment.bytes;
    fs.rmSync(path.join(this.dir, segment.name), { force: true });
  }
}
