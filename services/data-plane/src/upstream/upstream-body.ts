// An upstream answer's body as undici's dispatch handler delivers it (upstream-http.ts), without a
// Readable stream between them: the reads undici hands over are queued here and taken with `read()`,
// at once when one is queued, else by a promise for the next. Past HIGH_WATER_MARK bytes queued the
// connection is paused until the reader catches up, as a Readable's buffer would pause it.
import type { Dispatcher } from "undici";

/** As undici's own body stream's default: what may wait unread before the socket is paused. */
const HIGH_WATER_MARK = 64 * 1024;
/** As undici's `dump()`: a body longer than this is not read to its end, the connection is dropped. */
const DUMP_LIMIT = 128 * 1024;

export class UpstreamBody {
  private readonly queue: Buffer[] = [];
  private queuedBytes = 0;
  private ended = false;
  private error: Error | undefined;
  private waiting: { resolve(chunk: Buffer | null): void; reject(error: Error): void } | undefined;
  private controller: Dispatcher.DispatchController | undefined;
  /** Set while the body is being dumped: resolved once it ended, failed or was cut. */
  private dumped: { bytes: number; done(): void } | undefined;

  /** The next read: a Buffer, or null once the body ended; throws (or rejects) with the body's error. */
  read(): Buffer | null | Promise<Buffer | null> {
    const chunk = this.queue.shift();
    if (chunk) {
      this.queuedBytes -= chunk.length;
      if (this.queuedBytes < HIGH_WATER_MARK && this.controller?.paused) this.controller.resume();
      return chunk;
    }
    if (this.error) throw this.error;
    if (this.ended) return null;
    if (this.controller?.paused) this.controller.resume();
    return new Promise((resolve, reject) => (this.waiting = { resolve, reject }));
  }

  /** Stops reading: the connection is dropped (undici's abort), a pending read fails with `error`. */
  destroy(error: Error = new Error("the upstream body was destroyed")): void {
    if (this.ended || this.error) return;
    this.fail(error);
    this.controller?.abort(error);
  }

  /** Reads the rest and drops it (the connection can be reused); a body over 128 KiB is cut instead. */
  dump(): Promise<void> {
    this.queue.length = 0;
    this.queuedBytes = 0;
    if (this.ended || this.error) return Promise.resolve();
    if (this.controller?.paused) this.controller.resume();
    return new Promise((resolve) => (this.dumped = { bytes: 0, done: resolve }));
  }

  // The handler's side (upstream-http.ts).

  attach(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
  }

  received(chunk: Buffer): void {
    if (this.ended || this.error) return;
    if (this.dumped) {
      this.dumped.bytes += chunk.length;
      if (this.dumped.bytes > DUMP_LIMIT) this.destroy(new Error("the upstream body was longer than a dump reads"));
      return;
    }
    const { waiting } = this;
    if (waiting) {
      this.waiting = undefined;
      waiting.resolve(chunk);
      return;
    }
    this.queue.push(chunk);
    this.queuedBytes += chunk.length;
    if (this.queuedBytes >= HIGH_WATER_MARK) this.controller?.pause();
  }

  end(): void {
    if (this.ended || this.error) return;
    this.ended = true;
    this.settle();
    this.waiting?.resolve(null);
    this.waiting = undefined;
  }

  fail(error: Error): void {
    if (this.ended || this.error) return;
    this.error = error;
    // As a destroyed stream: what was queued is not read.
    this.queue.length = 0;
    this.queuedBytes = 0;
    this.settle();
    this.waiting?.reject(error);
    this.waiting = undefined;
  }

  private settle(): void {
    this.dumped?.done();
    this.dumped = undefined;
  }
}
