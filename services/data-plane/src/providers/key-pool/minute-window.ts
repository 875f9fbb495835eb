// What one key was given in the last minute, in one-second buckets: requests and tokens. Running
// totals make every read O(1), however busy the key; a bucket is emptied when its second leaves the
// minute.

const SECONDS = 60;

export class MinuteWindow {
  private readonly requestBuckets = new Uint32Array(SECONDS);
  private readonly tokenBuckets = new Float64Array(SECONDS);
  /** The newest second the buckets have been brought up to. */
  private second = 0;
  private requestTotal = 0;
  private tokenTotal = 0;

  /** Requests and tokens in the minute up to `nowMs`. */
  totals(nowMs: number): { requests: number; tokens: number } {
    this.advance(nowMs);
    return { requests: this.requestTotal, tokens: this.tokenTotal };
  }

  /** One request of `tokens`, now; returns its second, for `correct`. */
  add(nowMs: number, tokens: number): number {
    this.advance(nowMs);
    const slot = this.second % SECONDS;
    this.requestBuckets[slot]! += 1;
    this.tokenBuckets[slot]! += tokens;
    this.requestTotal += 1;
    this.tokenTotal += tokens;
    return this.second;
  }

  /** A request counted at `second` had `delta` more tokens (or fewer) than counted; nothing if it left the minute. */
  correct(nowMs: number, second: number, delta: number): void {
    this.advance(nowMs);
    if (second <= this.second - SECONDS || second > this.second) return;
    const slot = second % SECONDS;
    const applied = Math.max(delta, -this.tokenBuckets[slot]!);
    this.tokenBuckets[slot]! += applied;
    this.tokenTotal += applied;
  }

  /** Milliseconds until the oldest second still counted leaves the minute (0 when nothing is counted). */
  nextReleaseMs(nowMs: number): number {
    this.advance(nowMs);
    for (let second = this.second - SECONDS + 1; second <= this.second; second++) {
      const slot = second % SECONDS;
      if (this.requestBuckets[slot]! > 0 || this.tokenBuckets[slot]! > 0) return Math.max(0, (second + SECONDS) * 1000 - nowMs);
    }
    return 0;
  }

  private advance(nowMs: number): void {
    const now = Math.floor(nowMs / 1000);
    if (now <= this.second) return;
    // Each second that passed empties the bucket it reuses; a minute or more empties them all.
    for (let second = Math.max(this.second + 1, now - SECONDS + 1); second <= now; second++) {
      const slot = second % SECONDS;
      this.requestTotal -= this.requestBuckets[slot]!;
      this.tokenTotal -= this.tokenBuckets[slot]!;
      this.requestBuckets[slot] = 0;
      this.tokenBuckets[slot] = 0;
    }
    if (now - this.second >= SECONDS) {
      this.requestTotal = 0;
      this.tokenTotal = 0;
    }
    this.second = now;
  }
}
