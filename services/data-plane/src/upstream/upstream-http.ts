// HTTP to upstream providers through one undici Agent (a connection pool per
// origin). Timeouts are explicit (docs/resilience.md, README):
//   connect  - TCP/TLS connect (UPSTREAM_CONNECT_TIMEOUT_MS, default 10 s)
//   headers  - from request sent to response headers (UPSTREAM_HEADERS_TIMEOUT_MS, default 300 s:
//              a long non-streamed completion sends its headers only when done)
//   body     - longest silence between two body chunks (STREAM_IDLE_TIMEOUT_MS, default 60 s)
import type { EventEmitter } from "node:events";
import { Agent, request, type Dispatcher } from "undici";

/** The agent's timeouts (README: UPSTREAM_*_TIMEOUT_MS, STREAM_IDLE_TIMEOUT_MS). */
export interface UpstreamTimeouts {
  connectTimeoutMs: number;
  headersTimeoutMs: number;
  streamIdleTimeoutMs: number;
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

  constructor(timeouts: UpstreamTimeouts) {
    this.agent = new Agent({
      connect: { timeout: timeouts.connectTimeoutMs },
      headersTimeout: timeouts.headersTimeoutMs,
      bodyTimeout: timeouts.streamIdleTimeoutMs,
      keepAliveTimeout: 30_000,
      connections: 256,
    });
  }

  post(url: string, headers: Record<string, string>, body: string, signal: UpstreamSignal): Promise<UpstreamResponse> {
    const target = this.targets.get(url) ?? this.split(url);
    // A URL undici would refuse goes through its own request(), which throws its own error.
    if (!target) return request(url, { method: "POST", headers, body, signal, dispatcher: this.agent });
    return this.agent.request({ origin: target.origin, path: target.path, method: "POST", headers, body, signal });
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
