// HTTP to upstream providers through one undici Agent (a connection pool per
// origin). Timeouts are explicit (docs/resilience.md, README):
//   connect  - TCP/TLS connect (UPSTREAM_CONNECT_TIMEOUT_MS, default 10 s)
//   headers  - from request sent to response headers (UPSTREAM_HEADERS_TIMEOUT_MS, default 300 s:
//              a long non-streamed completion sends its headers only when done)
//   body     - longest silence between two body chunks (STREAM_IDLE_TIMEOUT_MS, default 60 s)
// No cap on connections per origin unless UPSTREAM_MAX_CONNECTIONS sets one: HTTP/1.1 carries one call
// per connection, and a cap queues every call beyond it (a long stream holds its connection for minutes).
import type { EventEmitter } from "node:events";
import type { IncomingHttpHeaders } from "node:http";
import { Agent, type Dispatcher, errors } from "undici";
import { UpstreamBody } from "./upstream-body";

/** The agent's settings (README: UPSTREAM_*_TIMEOUT_MS, STREAM_IDLE_TIMEOUT_MS, UPSTREAM_MAX_CONNECTIONS). */
export interface UpstreamSettings {
  connectTimeoutMs: number;
  headersTimeoutMs: number;
  streamIdleTimeoutMs: number;
  /** Per origin; 0: no cap. */
  maxConnections: number;
}

/**
 * Told whether a call reached a connection: `dispatched` turns true when undici hands the call to a
 * socket to be written. Until then (queued behind the connection cap, or waiting for a connect) the
 * provider has nothing, so a client leaving then costs nothing (engine/upstream-attempts.ts).
 */
export interface DispatchWatch {
  dispatched: boolean;
}

/**
 * One upstream call as undici's dispatch handler: resolves with the status and headers, then feeds the
 * body (upstream-body.ts); marks the watch when the call is handed to a connection, and aborts the call
 * when its signal fires, before a byte is written if it fired while the call waited.
 */
class UpstreamExchange implements Dispatcher.DispatchHandler {
  private readonly body = new UpstreamBody();
  private controller: Dispatcher.DispatchController | undefined;
  private started = false;
  private abortReason: Error | undefined;

  constructor(
    private readonly signal: UpstreamSignal,
    private readonly watch: DispatchWatch,
    private readonly settle: (error: Error | null, response?: UpstreamResponse) => void,
  ) {
    if (signal.aborted) this.abortReason = abortError(signal);
    else addAbortListener(signal, this.onAbort);
  }

  private readonly onAbort = (): void => {
    this.abortReason = abortError(this.signal);
    this.controller?.abort(this.abortReason);
  };

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    if (this.abortReason) {
      controller.abort(this.abortReason);
      return;
    }
    this.watch.dispatched = true;
    this.body.attach(controller);
  }

  onResponseStart(_controller: Dispatcher.DispatchController, statusCode: number, headers: IncomingHttpHeaders): void {
    if (statusCode < 200) return; // an informational answer: the final one follows
    this.started = true;
    this.settle(null, { statusCode, headers, body: this.body });
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.body.received(chunk);
  }

  onResponseEnd(): void {
    this.done();
    this.body.end();
  }

  onResponseError(_controller: Dispatcher.DispatchController | undefined, error: Error): void {
    this.done();
    if (this.started) this.body.fail(error);
    else this.settle(error);
  }

  private done(): void {
    removeAbortListener(this.signal, this.onAbort);
  }
}

export interface UpstreamResponse {
  statusCode: number;
  headers: IncomingHttpHeaders;
  body: UpstreamBody;
}
/** What aborts an upstream request: either form undici takes (engine/client-link.ts uses the lighter EventEmitter). */
export type UpstreamSignal = AbortSignal | (EventEmitter & { aborted: boolean });

function abortError(signal: UpstreamSignal): Error {
  const reason = (signal as AbortSignal).reason as unknown;
  return reason instanceof Error ? reason : new errors.RequestAbortedError();
}

function addAbortListener(signal: UpstreamSignal, listener: () => void): void {
  if ("addEventListener" in signal) signal.addEventListener("abort", listener, { once: true });
  else signal.once("abort", listener);
}

function removeAbortListener(signal: UpstreamSignal, listener: () => void): void {
  if ("removeEventListener" in signal) signal.removeEventListener("abort", listener);
  else signal.off("abort", listener);
}

/** Upstream URLs are few (providers x models x endpoints); the cache is cleared if that ever stops being true. */
const MAX_CACHED_URLS = 10_000;

export class UpstreamHttp {
  private readonly agent: Agent;
  /** Origin and path of each upstream URL, split once as undici splits it (it would parse the string on every call). */
  private readonly targets = new Map<string, { origin: string; path: string }>();

  constructor(settings: UpstreamSettings) {
    this.agent = new Agent({
      connect: { timeout: settings.connectTimeoutMs },
      headersTimeout: settings.headersTimeoutMs,
      bodyTimeout: settings.streamIdleTimeoutMs,
      keepAliveTimeout: 30_000,
      connections: settings.maxConnections > 0 ? settings.maxConnections : null,
    });
  }

  /** `watch`: told when the call reaches a connection. */
  post(
    url: string,
    headers: Record<string, string>,
    body: string,
    signal: UpstreamSignal,
    watch: DispatchWatch,
  ): Promise<UpstreamResponse> {
    const target = this.targets.get(url) ?? this.split(url);
    // A URL undici would refuse: nothing is sent.
    if (!target) return Promise.reject(new errors.InvalidArgumentError(`invalid upstream URL: ${url.slice(0, 200)}`));
    const opts: Dispatcher.DispatchOptions = { origin: target.origin, path: target.path, method: "POST", headers, body };
    return new Promise((resolve, reject) => {
      const exchange = new UpstreamExchange(signal, watch, (error, response) => (error ? reject(error) : resolve(response!)));
      try {
        this.agent.dispatch(opts, exchange);
      } catch (error) {
        reject(error);
      }
    });
  }

  private split(url: string): { origin: string; path: string } | undefined {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return undefined;
    }
    if (parsed.protocol !== "http:" && parsed.protocol !== "https:") return undefined;
    const target = { origin: parsed.origin, path: parsed.search ? `${parsed.pathname}${parsed.search}` : parsed.pathname };
    if (this.targets.size >= MAX_CACHED_URLS) this.targets.clear();
    this.targets.set(url, target);
    return target;
  }

  /** Lets upstream calls finish for up to `graceMs`, then destroys what is left (a shutdown never waits on an upstream). */
  async close(graceMs: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<"late">((resolve) => (timer = setTimeout(() => resolve("late"), graceMs)));
    if ((await Promise.race([this.agent.close().then(() => "closed" as const), deadline])) === "late") await this.agent.destroy();
    clearTimeout(timer);
  }
}
