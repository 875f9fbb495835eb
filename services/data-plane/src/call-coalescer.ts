// Coalesces many requests' small remote calls into one. While one call is in
// flight, what arrives meanwhile waits and goes together in the next one: a
// lone item is sent at once, and under load many requests share one round trip.
// Used for the control plane's Draw calls and the per-minute limit's Redis
// checks. With `minIntervalMs`, calls also start at most that often (unless a
// full batch waits, or `hurry` was called): for calls nobody waits on, fewer and
// larger batches are cheaper.

/** Sends a batch; answers one result per item, in order, or an Error for an item that failed alone. */
export type BatchCall<Item, Result> = (items: Item[]) => Promise<(Result | Error)[]>;

/** Who is told an item's outcome: a promise's own functions (`submit`), or an object that waits for it (`send`); neither may throw. */
export interface Receiver<Result> {
  answered(result: Result): void;
  failed(error: unknown): void;
}

interface Pending<Item, Result> {
  item: Item;
  receiver: Receiver<Result>;
}

export class CallCoalescer<Item, Result> {
  private queue: Pending<Item, Result>[] = [];
  private sending = false;
  private lastSentAt = -Infinity;
  /** Ends the wait for the interval early (a full batch is waiting, or a caller hurries). */
  private wake: (() => void) | undefined;
  /** Someone waits on what is queued: the next call goes as soon as the one in flight is answered. */
  private hurried = false;

  constructor(
    private readonly call: BatchCall<Item, Result>,
    private readonly maxBatch: number,
    private readonly minIntervalMs = 0,
  ) {}

  submit(item: Item): Promise<Result> {
    return new Promise((answered, failed) => this.send(item, { answered, failed }));
  }

  /** As submit, the outcome told to `receiver`: no promise for an item whose caller does not wait on it. */
  send(item: Item, receiver: Receiver<Result>): void {
    this.queue.push({ item, receiver });
    if (!this.sending) void this.pump();
    else if (this.wake && this.queue.length >= this.maxBatch) this.wake();
  }

  /** What is queued now goes without waiting for the interval (after the call in flight, if any: one call at a time). */
  hurry(): void {
    if (this.queue.length === 0) return;
    this.hurried = true;
    this.wake?.();
  }

  private async pump(): Promise<void> {
    this.sending = true;
    while (this.queue.length > 0) {
      const wait = Math.min(this.minIntervalMs, this.lastSentAt + this.minIntervalMs - performance.now());
      if (wait > 0 && this.queue.length < this.maxBatch && !this.hurried) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, wait);
          this.wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        this.wake = undefined;
      }
      this.lastSentAt = performance.now();
      const batch = this.queue;
      this.queue = batch.length > this.maxBatch ? batch.splice(this.maxBatch) : [];
      // What is left may hold a hurried item: it goes next without waiting either.
      if (this.queue.length === 0) this.hurried = false;
      let results: (Result | Error)[];
      try {
        results = await this.call(batch.map((entry) => entry.item));
      } catch (error) {
        // Nothing is known of this call: every item in it fails (the callers retry or fall back).
        for (const entry of batch) entry.receiver.failed(error);
        continue;
      }
      // Outside the call's try: a receiver's own failure is not the call's, and fails no other item.
      for (let index = 0; index < batch.length; index++) {
        const result = results[index];
        const { receiver } = batch[index]!;
        if (result === undefined) receiver.failed(new Error(`a batch of ${batch.length} was answered with ${results.length} results`));
        else if (result instanceof Error) receiver.failed(result);
        else receiver.answered(result);
      }
    }
    this.sending = false;
  }
}
