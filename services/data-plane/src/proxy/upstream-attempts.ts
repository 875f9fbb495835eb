// The attempts of one call, before anything reaches the client
// (docs/resilience.md). The hold is placed once, then targets are tried in
// order: a transient failure (429, 500, 502, 503, 504, 529, a timeout, a refused
// or reset connection) is retried once on the same model and access path
// (after the upstream's Retry-After when it fits the wait budget, else a short
// backoff), then the next access path of the model, then the next candidate
// model, within UPSTREAM_MAX_ATTEMPTS. A path whose circuit is open is skipped. A path's own refusal
// (401, 402, 403, 404: our key, our credit, the model gone there) moves on without a retry. Any other
// non-transient refusal returns at once. Every attempt, skipped ones included, is in the routing
// trace. When none answers, the hold is released and the caller gets the last
// upstream failure, or 504 when every attempt found the upstream unreachable.
// The upstream's own body and headers are never relayed.
import { setTimeout as sleep } from "node:timers/promises";
import { clientClosed, type GatewayError, upstreamFailure, upstreamUnreachable } from "../errors";
import type { Gateway } from "../gateway";
import { retryAfterSeconds } from "../upstream/retry-after";
import type { ClientLink } from "../routes/client-link";
import { PathHealth } from "../routing/path-health";
import type { Attempt } from "../routing/route-trace";
import type { UpstreamResponse } from "../upstream/upstream-http";
import { releaseCall, reserveCall, settlePromptOnly } from "./call-money";
import { useTarget, type PreparedCall } from "./prepare-call";

// 529: Anthropic's "overloaded", transient like a 503.
const TRANSIENT_STATUSES = new Set([429, 500, 502, 503, 504, 529]);
/**
 * Refusals that are about the access path, not the caller's request: our key refused (401, 403),
 * our account out of credit (402), the model gone at that provider (404). No use retrying the
 * path; the next path or model may answer. When none does, the caller gets this status.
 */
const PATH_REFUSALS = new Set([401, 402, 403, 404]);
/** Statuses that count against a path's health. */
const isPathFault = (status: number) => status >= 500 || status === 429 || PATH_REFUSALS.has(status);
const ERROR_BODY_LIMIT = 64 * 1024;

export class UpstreamAttempts {
  private index = 0;
  /** Attempts sent to the current target. */
  private triesOnTarget = 0;
  private sent = 0;
  private waitedMs = 0;
  private retriedSamePath = false;
  /** The last failure was the path's own refusal: the same path is not tried again. */
  private skipSamePath = false;
  private lastModel: string | undefined;
  /** performance.now() when the current attempt was sent (time to first event is measured from it). */
  sentAt = 0;
  private retryAfterMs: number | undefined;
  private lastFailure: GatewayError | undefined;
  private reserved = false;
  private current: { attempt: Attempt; healthKey: string } | undefined;

  constructor(
    private readonly gateway: Gateway,
    private readonly call: PreparedCall,
    private readonly client: ClientLink,
  ) {}

  /**
   * Places the hold (first call only) and returns the first upstream response
   * with status 200. Throws the final error once nothing is left to try; the
   * hold is then released (or the prompt billed, when the client left while
   * an upstream was reading it).
   */
  async open(): Promise<UpstreamResponse> {
    if (!this.reserved) {
      await reserveCall(this.gateway, this.call);
      this.reserved = true;
    }
    for (;;) {
      if (this.client.gone) return this.giveUp(clientClosed());
      if (!(await this.advance())) return this.giveUp(this.lastFailure ?? upstreamUnreachable());
      // The client may have left during a retry's wait: nothing more goes upstream.
      if (this.client.gone) return this.giveUp(clientClosed());
      const response = await this.send();
      if (response) return response;
    }
  }

  /** The response `open()` returned was read whole (or the client left while it was fine): the path is healthy. */
  answered(): void {
    if (!this.current) return;
    this.gateway.health.record(this.current.healthKey, { ok: true, latencyMs: this.current.attempt.ms });
    this.countAttempt("ok");
  }

  /**
   * The response `open()` returned broke before anything reached the client
   * (cut, unreadable, or an error event first): a transient failure of that
   * attempt; the next `open()` moves on.
   */
  failedBeforeFirstByte(outcome: string): void {
    if (!this.recordFailure(outcome)) return;
    this.lastFailure = upstreamFailure(502);
    this.retryAfterMs = undefined;
  }

  /** A stream that had started failed later: it counts against its path's health. */
  failedAfterFirstByte(outcome: string): void {
    this.recordFailure(outcome);
  }

  /** The current attempt's outcome in the trace, its path's health and the metric; false without one. */
  private recordFailure(outcome: string): boolean {
    if (!this.current) return false;
    this.current.attempt.outcome = outcome;
    this.gateway.health.record(this.current.healthKey, { ok: false, latencyMs: this.current.attempt.ms });
    this.countAttempt(outcome);
    return true;
  }

  /**
   * Chooses the target of the next attempt. After the first transient
   * failure, the same target once more (after its Retry-After when that fits
   * the wait budget, else a short backoff); after any other, the next target
   * the hold covers and whose circuit admits a call. One same-path retry per
   * request keeps a fallback model within reach of the attempt limit.
   * False when nothing is left.
   */
  private async advance(): Promise<boolean> {
    const { config } = this.gateway;
    if (this.sent >= config.upstream.maxAttempts) return false;
    const samePathUseless = this.skipSamePath;
    this.skipSamePath = false;
    if (this.triesOnTarget === 1 && !this.retriedSamePath && !samePathUseless) {
      const waitMs = this.retryAfterMs ?? config.upstream.retryBackoffMs;
      const { path } = this.call.target;
      if (
        this.waitedMs + waitMs <= config.upstream.retryWaitBudgetMs &&
        this.gateway.health.admit(PathHealth.key(path.provider, path.upstreamModel))
      ) {
        this.retriedSamePath = true;
        this.gateway.metrics.retries.series(path.provider).inc();
        this.waitedMs += waitMs;
        try {
          await sleep(waitMs, undefined, { signal: this.client.goneSignal() });
        } catch {
          // The client left; open() notices.
        }
        return true;
      }
    }
    if (this.triesOnTarget > 0) this.index++;
    this.triesOnTarget = 0;
    for (; this.index < this.call.targets.length; this.index++) {
      const target = this.call.targets[this.index]!;
      if (!useTarget(this.call, target)) {
        this.skip("skipped: the hold cannot cover this model");
        continue;
      }
      if (!this.gateway.health.admit(PathHealth.key(target.path.provider, target.path.upstreamModel))) {
        this.skip("skipped: circuit open");
        continue;
      }
      return true;
    }
    return false;
  }

  private skip(outcome: string): void {
    const { target } = this.call;
    this.call.trace.attempts.push({ model: target.model.id, path: target.path.provider, outcome, ms: 0 });
    this.countAttempt(outcome);
  }

  /** One attempt on the current target: the 200 response, or undefined after a transient failure. */
  private async send(): Promise<UpstreamResponse | undefined> {
    const { call } = this;
    const { target } = call;
    const attempt: Attempt = { model: target.model.id, path: target.path.provider, outcome: "ok", ms: 0 };
    call.trace.attempts.push(attempt);
    const healthKey = PathHealth.key(target.path.provider, target.path.upstreamModel);
    this.current = { attempt, healthKey };
    const started = performance.now();
    const metrics = this.gateway.metrics;
    if (this.sent === 0 && call.receivedAt !== undefined)
      metrics.overhead.series("before_upstream").observe((started - call.receivedAt) / 1000);
    if (this.sent > 0 && this.triesOnTarget === 0) {
      metrics.fallbacks.series(this.lastModel === target.model.id ? "path" : "model").inc();
    }
    this.lastModel = target.model.id;
    this.sent++;
    this.triesOnTarget++;
    this.retryAfterMs = undefined;
    this.sentAt = started;

    let response: UpstreamResponse;
    try {
      response = await target.provider.send(target.upstream, this.client.upstream);
    } catch (error) {
      attempt.ms = Math.round(performance.now() - started);
      if (this.client.gone) {
        // The client left while the upstream had the prompt: the prompt is billed.
        attempt.outcome = "client_closed";
        this.countAttempt(attempt.outcome);
        await settlePromptOnly(this.gateway, call);
        throw Object.assign(clientClosed(), { cause: error });
      }
      this.recordFailure(isTimeout(error) ? "timeout" : "unreachable");
      return undefined;
    }
    const seconds = (performance.now() - started) / 1000;
    attempt.ms = Math.round(seconds * 1000);
    metrics.upstreamLatency.series(target.path.provider).observe(seconds);
    // A 200 counts for the path's health once its body is read: answered() or failed...FirstByte().
    if (response.statusCode === 200) return response;
    this.gateway.health.record(healthKey, { ok: !isPathFault(response.statusCode), latencyMs: attempt.ms });

    attempt.outcome = `http_${response.statusCode}`;
    this.countAttempt(attempt.outcome);
    const body = await readErrorBody(response);
    const retryAfter = retryAfterSeconds(response.headers["retry-after"]);
    const failure = upstreamFailure(response.statusCode, {
      category: target.provider.adapter.classifyError(body),
      retryAfterSeconds: retryAfter,
    });
    if (PATH_REFUSALS.has(response.statusCode)) {
      this.lastFailure = failure;
      this.skipSamePath = true;
      return undefined;
    }
    if (!TRANSIENT_STATUSES.has(response.statusCode)) return this.giveUp(failure);
    this.lastFailure = failure;
    this.retryAfterMs = retryAfter === undefined ? undefined : retryAfter * 1000;
    return undefined;
  }

  /** Nothing more will be tried: the hold goes back, and the caller gets `failure`. */
  private async giveUp(failure: GatewayError): Promise<never> {
    if (this.reserved) await releaseCall(this.gateway, this.call);
    // Only HTTP failures set lastFailure; none means every attempt found the upstream unreachable.
    throw failure;
  }

  private countAttempt(outcome: string): void {
    this.gateway.metrics.upstreamAttempts.series(this.call.target.path.provider, outcome.startsWith("skipped") ? "skipped" : outcome).inc();
  }
}

function isTimeout(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === "UND_ERR_HEADERS_TIMEOUT" || code === "UND_ERR_CONNECT_TIMEOUT" || code === "UND_ERR_BODY_TIMEOUT";
}

/** An upstream error body, parsed when it is small JSON (only its structured fields are used). */
async function readErrorBody(response: UpstreamResponse): Promise<unknown> {
  try {
    const length = Number(response.headers["content-length"] ?? 0);
    if (length > ERROR_BODY_LIMIT) {
      await response.body.dump();
      return undefined;
    }
    const text = await response.body.text();
    return text.length <= ERROR_BODY_LIMIT ? (JSON.parse(text) as unknown) : undefined;
  } catch {
    return undefined;
  }
}
