// A circuit around one Redis connection, for the parts that must not make a request wait on a hung
// Redis (the per-minute limit, docs/limits.md; the draw journal, docs/money.md). Once a call fails or
// is late the part trips it: while it is open, the part's callers do not use Redis at all, and a
// background probe (one PING at a time) closes it once Redis answers one within REDIS_TIMEOUT_MS.
import { Redis } from "ioredis";

/**
 * A connection for such a part: nothing queued while it is down (a caller must not wait for Redis to
 * come back), no retries per command, and a command Redis does not answer ended after 2 s so the next
 * can be sent (each caller gives up sooner, at REDIS_TIMEOUT_MS); reconnecting in the background.
 */
export function failFastRedis(url: string, options: { autoPipelining?: boolean } = {}): Redis {
  return new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    enableAutoPipelining: options.autoPipelining ?? false,
    commandTimeout: 2_000,
    connectTimeout: 1_000,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
  });
}

/** A call to Redis not answered within this long counts as late; longer than a healthy Redis ever takes. */
export const REDIS_TIMEOUT_MS = 250;
/** While open, Redis is probed this long after the last probe ended. */
export const PROBE_INTERVAL_MS = 250;

export interface CircuitHooks {
  /** Runs once a probe was answered, before the circuit closes (the limiter writes back what it admitted meanwhile). */
  beforeClose?: (openedAt: number) => Promise<void>;
  /** Told each time the circuit opens (true) or closes (false). */
  onChange?: (open: boolean) => void;
}

export class RedisCircuit {
  private isOpen = false;
  /** When it last opened (Date.now()). */
  private openedAt = 0;
  /** Probes sent (a test's view of what a part with its circuit open still asks Redis). */
  probes = 0;
  private probe: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly ping: () => Promise<unknown>,
    private readonly hooks: CircuitHooks = {},
  ) {}

  get open(): boolean {
    return this.isOpen;
  }

  /** A call failed or was late: callers stop using Redis until a probe is answered in time. */
  trip(): void {
    if (this.isOpen || this.stopped) return;
    this.isOpen = true;
    this.openedAt = Date.now();
    this.scheduleProbe();
    this.hooks.onChange?.(true);
  }

  /** Shutdown: no more probes. */
  stop(): void {
    this.stopped = true;
    clearTimeout(this.probe);
  }

  private scheduleProbe(): void {
    if (this.stopped) return;
    this.probe = setTimeout(() => void this.runProbe(), PROBE_INTERVAL_MS);
    this.probe.unref();
  }

  /**
   * One PING; Redis is back once one is answered within REDIS_TIMEOUT_MS. A slower answer (a Redis
   * just thawed, still working through what waited) keeps the circuit open until the next probe,
   * sent once this one has ended (at the latest at the connection's command timeout).
   */
  private async runProbe(): Promise<void> {
    this.probes++;
    const sentAt = performance.now();
    const ping = this.ping();
    const answered = await inTime(ping, () => sentAt + REDIS_TIMEOUT_MS).then(
      () => true,
      () => false,
    );
    if (!answered) await ping.catch(() => {});
    if (this.stopped) return;
    if (!answered) return this.scheduleProbe();
    await this.hooks.beforeClose?.(this.openedAt);
    if (this.stopped) return;
    this.isOpen = false;
    this.hooks.onChange?.(false);
  }
}

/**
 * What `call` gives, or an error once REDIS_TIMEOUT_MS have passed and the time is past `deadline()`
 * (performance.now(); read again each time, as it can move). The time is looked at only after the
 * event loop has read its sockets once more (setImmediate runs after that; timers before it), so
 * this process's own stall is not mistaken for Redis's.
 */
export function inTime<T>(call: Promise<T>, deadline: () => number): Promise<T> {
  return new Promise((resolve, reject) => {
    let settled = false;
    const expire = () =>
      setImmediate(() => {
        if (settled) return;
        const left = deadline() - performance.now();
        if (left > 0) timer = setTimeout(expire, left);
        else {
          settled = true;
          reject(new Error(`Redis did not answer within ${REDIS_TIMEOUT_MS} ms`));
        }
      });
    let timer = setTimeout(expire, REDIS_TIMEOUT_MS);
    call.then(
      (answer) => {
        settled = true;
        clearTimeout(timer);
        resolve(answer);
      },
      (error: unknown) => {
        settled = true;
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}
