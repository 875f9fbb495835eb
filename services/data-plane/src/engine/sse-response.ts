// The client side of a streamed answer. Headers are sent lazily: with the
// first event, or when the client has waited `keepAliveMs` with nothing
// written, so a fast failure still gets its HTTP status and JSON error body.
// From then on the client receives an SSE comment whenever nothing else was
// written for `keepAliveMs` (a waiting client gets one at least every 15 s), before
// the first chunk and during upstream pauses alike. Headers sent by a keep-alive
// go out before the attempts are over: they say so ("2 attempts so far"), and
// the stream's last JSON event carries their final values (`service`).
import type { ClientReply } from "./client-reply";
import { withFieldInLastEvent } from "../dialects/sse-frames";

export class SseResponse {
  private readonly timer: NodeJS.Timeout;
  private started = false;
  /** The headers went out with a keep-alive, before the outcome was known. */
  private early = false;
  /** Events added and not written yet: text, then (once bytes were added) parts. */
  private pending = "";
  private readonly parts: (string | Buffer)[] = [];

  constructor(
    private readonly reply: ClientReply,
    keepAliveMs: number,
    /** A client that reads nothing for this long is cut, so a stalled reader cannot hold a request open. */
    private readonly writeTimeoutMs: number,
    /**
     * Headers of the answer, computed when they are sent (the routing headers name the model tried then);
     * `soFar` when they go out before the outcome is known.
     */
    private readonly headers: (soFar: boolean) => Record<string, string>,
  ) {
    this.timer = setTimeout(() => this.keepAlive(), keepAliveMs);
  }

  /** Whether the status line and headers went out: errors can then only be events. */
  get committed(): boolean {
    return this.started;
  }

  /** The client's socket is gone. */
  get destroyed(): boolean {
    return this.raw.destroyed;
  }

  private get raw() {
    return this.reply.raw;
  }

  private commit(soFar: boolean): void {
    if (this.started) return;
    this.started = true;
    this.early = soFar;
    // From here on the response is ours to write; errors can no longer become a JSON error body.
    this.reply.hijack();
    // A fresh copy of the headers set before the handler (request id, rate limit), completed in place.
    const headers = this.reply.getHeaders() as Record<string, string>;
    headers["content-type"] = "text/event-stream; charset=utf-8";
    headers["cache-control"] = "no-cache";
    headers.connection = "keep-alive";
    Object.assign(headers, this.headers(soFar));
    this.raw.writeHead(200, headers);
  }

  private keepAlive(): void {
    if (this.raw.destroyed || this.raw.writableEnded) return;
    this.commit(true);
    // A comment is skipped, not queued, while the client is not reading.
    if (!this.raw.writableNeedDrain) this.raw.write(": keep-alive\n\n");
    this.timer.refresh();
  }

  /** Adds complete SSE frames; they go out with the others added since the last write at the next `flush`, in one write. */
  add(frames: string): void {
    if (this.parts.length === 0) this.pending += frames;
    else this.parts.push(frames);
  }

  /** Adds a frame relayed as the upstream's bytes; one that follows the last in the same buffer joins it (no copy). */
  addBytes(frame: Buffer): void {
    const { parts } = this;
    if (this.pending !== "") {
      parts.push(this.pending);
      this.pending = "";
    }
    const last = parts[parts.length - 1];
    if (typeof last === "object" && last.buffer === frame.buffer && last.byteOffset + last.length === frame.byteOffset)
      parts[parts.length - 1] = Buffer.from(last.buffer, last.byteOffset, last.length + frame.length);
    else parts.push(frame);
  }

  /** What was added since the last write, as one chunk ("" for nothing). */
  private take(): string | Buffer {
    if (this.parts.length === 0) {
      const text = this.pending;
      this.pending = "";
      return text;
    }
    const { parts } = this;
    if (this.pending !== "") parts.push(this.pending);
    this.pending = "";
    const joined =
      parts.length === 1 ? parts[0]! : Buffer.concat(parts.map((part) => (typeof part === "string" ? Buffer.from(part) : part)));
    parts.length = 0; // the same array for the next read's events
    return joined;
  }

  /**
   * Writes the events added so far, respecting backpressure: undefined when the client took them
   * (or is gone, or there were none), else a promise of its drain (or close).
   */
  flush(): Promise<void> | undefined {
    const text = this.take();
    if (text.length === 0) return undefined;
    // Events go out only once the attempts are over: the headers can state the outcome.
    this.commit(false);
    this.timer.refresh();
    const raw = this.raw;
    if (raw.destroyed || raw.writableEnded) return undefined;
    if (raw.write(text)) return undefined;
    return this.taken("drain");
  }

  /** Resolves when the client took what was written (`until`) or is gone; one that takes nothing within the write timeout is cut. */
  private taken(until: "drain" | "finish"): Promise<void> {
    const raw = this.raw;
    return new Promise((resolve) => {
      const timer = setTimeout(() => raw.destroy(), this.writeTimeoutMs);
      const done = () => {
        clearTimeout(timer);
        raw.off(until, done);
        raw.off("close", done);
        resolve();
      };
      raw.on(until, done);
      raw.on("close", done);
    });
  }

  /**
   * Adds the stream's last frames, written by `end` with the response's end (one write for both); when the
   * headers went out early, their final values ride on its last JSON event.
   */
  addLast(frames: string): void {
    this.add(this.early ? withFieldInLastEvent(frames, "service", this.headers(false)) : frames);
  }

  /**
   * Stops the keep-alive; ends the response when it was started, with the events still pending in the same
   * write as the end of the chunked body (a system call less per stream: docs/benchmark.md, issue 22).
   */
  end(): void {
    clearTimeout(this.timer);
    const text = this.take();
    if (text.length !== 0) this.commit(false);
    const raw = this.raw;
    if (!this.started || raw.writableEnded) return;
    if (text.length === 0 || raw.destroyed) {
      raw.end();
      return;
    }
    raw.end(text);
    // A client that does not take the last events within the write timeout is cut, as during the stream.
    if (raw.writableNeedDrain) void this.taken("finish");
  }

  /** Stops the keep-alive without touching the response (it was never started: the error handler answers). */
  stop(): void {
    clearTimeout(this.timer);
  }
}
