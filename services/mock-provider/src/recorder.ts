// In-memory log of received /v1 requests, so tests can assert on exactly what
// the gateway forwarded and on exactly what the mock answered.
import type { RecordedRequest } from "./types";

export class RequestLog {
  private entries: RecordedRequest[] = [];
  private nextIndex = 0;

  constructor(private readonly capacity: number) {}

  /** Adds an entry (the caller keeps the reference and fills in the response later). */
  record(entry: Omit<RecordedRequest, "index">): RecordedRequest {
    const stored: RecordedRequest = { index: this.nextIndex++, ...entry };
    this.entries.push(stored);
    // Bounded so long benchmark runs cannot exhaust memory; oldest go first.
    if (this.entries.length > this.capacity) this.entries.splice(0, this.entries.length - this.capacity);
    return stored;
  }

  /** Entries with index >= since (all when since is undefined). */
  list(since?: number): RecordedRequest[] {
    if (since === undefined) return [...this.entries];
    return this.entries.filter((e) => e.index >= since);
  }

  last(): RecordedRequest | undefined {
    return this.entries[this.entries.length - 1];
  }

  clear(): void {
    this.entries = [];
    this.nextIndex = 0;
  }
}
