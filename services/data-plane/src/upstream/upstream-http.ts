// HTTP to upstream providers through one undici Agent (a connection pool per
// origin). Timeouts are explicit (docs/resilience.md, README):
//   connect  - TCP/TLS connect (UPSTREAM_CONNECT_TIMEOUT_MS, default 10 s)
//   headers  - from request sent to response headers (UPSTREAM_HEADERS_TIMEOUT_MS, default 300 s:
//              a long non-streamed completion sends its headers only when done)
//   body     - longest silence between two body chunks (STREAM_IDLE_TIMEOUT_MS, default 60 s)
import { Agent, request, type Dispatcher } from "undici";
import type { DataPlaneConfig } from "../config";

export type UpstreamResponse = Dispatcher.ResponseData;

export class UpstreamHttp {
  private readonly agent: Agent;

  constructor(timeouts: DataPlaneConfig["upstream"]) {
    this.agent = new Agent({
      connect: { timeout: timeouts.connectTimeoutMs },
      headersTimeout: timeouts.headersTimeoutMs,
      bodyTimeout: timeouts.streamIdleTimeoutMs,
      keepAliveTimeout: 30_000,
      connections: 256,
    });
  }

  post(url: string, headers: Record<string, string>, body: string, signal: AbortSignal): Promise<UpstreamResponse> {
    return request(url, { method: "POST", headers, body, signal, dispatcher: this.agent });
  }

  /** Lets upstream calls finish for up to `graceMs`, then destroys what is left (a shutdown never waits on an upstream). */
  async close(graceMs: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<"late">((resolve) => (timer = setTimeout(() => resolve("late"), graceMs)));
    if ((await Promise.race([this.agent.close().then(() => "closed" as const), deadline])) === "late") await this.agent.destroy();
    clearTimeout(timer);
  }
}
