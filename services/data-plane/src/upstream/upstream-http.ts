// HTTP to upstream providers through one undici Agent (a connection pool per
// origin). Timeouts are explicit (docs/resilience.md, README):
//   connect  - TCP/TLS connect (UPSTREAM_CONNECT_TIMEOUT_MS, default 10 s)
//   headers  - from request sent to response headers (UPSTREAM_HEADERS_TIMEOUT_MS, default 300 s:
//              a long non-streamed completion sends its headers only when done)
//   body     - longest silence between two body chunks (STREAM_IDLE_TIMEOUT_MS, default 60 s)
// No cap on connections per origin unless UPSTREAM_MAX_CONNECTIONS sets one: HTTP/1.1 carries one call
// per connection, and a cap queues every call beyond it (a long stream holds its connection for minutes).
import type { EventEmitter } from "node:events";
import { Agent, request, type Dispatcher } from "undici";
import undiciRequest from "undici/lib/api/api-request.js";

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

/** undici's own request handler, which also marks the watch when the call is handed to a connection. */
class WatchedRequest extends undiciRequest.RequestHandler {
  constructor(
    opts: Dispatcher.RequestOptions,
    callback: (error: Error | null, data: Dispatcher.ResponseData) => void,
    private readonly watch: DispatchWatch,
  ) {
    super(opts, callback);
  }

  override onConnect(abort: (error?: Error) => void, context?: unknown): void {
    // A call whose signal already fired is aborted here, before a byte is written.
    if (!this.reason) this.watch.dispatched = true;
    super.onConnect(abort, context);
  }
}

export type UpstreamResponse = Dispatcher.ResponseData;
/** What aborts an upstream request: either form undici takes (engine/client-link.ts uses the lighter EventEmitter). */
export type UpstreamSignal = AbortSignal | EventEmitter;

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
    // A URL undici would refuse goes through its own request(), which throws its own error (nothing is sent).
    if (!target) return request(url, { method: "POST", headers, body, signal, dispatcher: this.agent });
    const opts: Dispatcher.RequestOptions = { origin: target.origin, path: target.path, method: "POST", headers, body, signal };
    // As undici's own request() does, with its handler extended.
    return new Promise((resolve, reject) => {
      try {
        this.agent.dispatch(opts, new WatchedRequest(opts, (error, data) => (error ? reject(error) : resolve(data)), watch));
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
