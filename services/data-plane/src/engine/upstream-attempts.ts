// The attempts of one call before anything reaches the client: the hold is
// placed once, then attempt-policy.ts says which target goes next; this file
// checks the target can be used (the hold covers it, its circuit admits it),
// sends, and records each attempt in the routing trace, the path's health and
// the metrics. When nothing is left, the hold goes back and the caller gets
// the last upstream failure, or 504 when every attempt found the upstream
// unreachable. An upstream's own error body and headers are never relayed.
// On a path with a pool of keys, each attempt takes a key; a 429, 401 or 403
// that speaks of that key alone moves the call at once to another key of the
// pool (docs/providers.md, "Pools of keys"), without counting against the path.
// Traced, each attempt is a client span, its traceparent sent upstream.
import { NO_SPAN, type TraceSpan } from "@gateway/proto/tracing";
import { setTimeout as sleep } from "node:timers/promises";
import {
  clientClosed,
  effectiveStatus,
  type GatewayError,
  upstreamAnswerTooLarge,
  upstreamFailure,
  upstreamUnexpectedStatus,
  upstreamUnreachable,
} from "../errors";
import type { CounterFamily, HistogramFamily } from "../metric-families";
import type { PathHealth } from "../routing/path-health";
import type { Attempt } from "../routing/route-trace";
import { readTextWithin, SMALL_BODY_BYTES } from "../upstream/body-limit";
import { responseRetryAfter } from "../upstream/retry-after";
import type { DispatchWatch, UpstreamResponse } from "../upstream/upstream-http";
import { UpstreamCredentialsError } from "../providers/cloud/upstream-auth";
import {
  type AttemptOutcome,
  type AttemptSettings,
  type AttemptState,
  INITIAL_ATTEMPT_STATE,
  nextAttempt,
  type SendStep,
} from "./attempt-policy";
import type { Call } from "./call";
import type { CallMoney } from "./call-money";
import { AttemptKeys } from "./attempt-keys";
import { type ChosenCall, chooseCall, traceChoice } from "./choose-target";
import type { ClientLink } from "./client-link";

// 529: Anthropic's "overloaded", transient like a 503.
const TRANSIENT_STATUSES = new Set([429, 500, 502, 503, 504, 529]);
/** Refusals about the access path, not the request: our key (401, 403), our credit (402), the model gone there (404). */
const PATH_REFUSALS = new Set([401, 402, 403, 404]);
/**
 * Neither an answer nor an error: a redirect (undici follows none, and a provider that moved is a
 * configuration fault, not the caller's answer), or a 1xx/2xx other than 200.
 */
const isUnexpected = (status: number) => status < 400;
/** Statuses that count against a path's health. */
const isPathFault = (status: number) => status >= 500 || status === 429 || PATH_REFUSALS.has(status) || isUnexpected(status);
/** Failures that speak of the path for everyone (our key, our quota, a provider that moved), not of one project's request. */
const isAboutPathItself = (status: number) => status === 429 || PATH_REFUSALS.has(status) || isUnexpected(status);

export interface AttemptMetrics {
  /** By provider and outcome. */
  upstreamAttempts: CounterFamily;
  /** Same-path retries, by provider. */
  retries: CounterFamily;
  /** Attempts sent to another path of the same model ("path") or to another model ("model"). */
  fallbacks: CounterFamily;
  /** The gateway's own time, by phase ("before_upstream" here). */
  overhead: HistogramFamily;
  /** To the upstream's response headers, by provider. */
  upstreamLatency: HistogramFamily;
}

export interface AttemptContext {
  health: PathHealth;
  settings: AttemptSettings;
  metrics: AttemptMetrics;
  money: CallMoney;
}

export class UpstreamAttempts {
  private state: AttemptState = INITIAL_ATTEMPT_STATE;
  /** What the last attempt came to: the policy's input for the next one. */
  private outcome: AttemptOutcome = { kind: "start" };
  private lastFailure: GatewayError | undefined;
  private current: { attempt: Attempt; healthKey: string } | undefined;
  private lastModel: string | undefined;
  /** Each attempt's key, on a path with a pool. */
  private readonly keys = new AttemptKeys();
  private reserved = false;
  /** The current attempt's span, until its outcome is known (NO_SPAN with tracing off). */
  private span: TraceSpan = NO_SPAN;
  /** performance.now() when the current attempt was sent (time to first event counts from it). */
  sentAt = 0;

  constructor(
    private readonly context: AttemptContext,
    private readonly call: Call,
    private readonly client: ClientLink,
  ) {}

  /**
   * Places the hold (first call only) and returns the next upstream response with status 200.
   * Throws the final error once nothing is left to try, the hold released (or the prompt billed,
   * when the client left while an upstream was reading it).
   */
  async open(): Promise<UpstreamResponse> {
    if (!this.reserved) {
      await this.context.money.reserve(this.call);
      this.reserved = true;
    }
    for (;;) {
      if (this.client.gone) return this.giveUp(clientClosed());
      const next = nextAttempt(this.state, this.outcome, this.context.settings, this.call.plan.targets.length);
      this.state = next.state;
      if (next.step.kind === "give_up") return this.giveUp(this.lastFailure ?? upstreamUnreachable());
      // A new target is checked at once; only a retry waits (its backoff); another key goes at once, as its target was admitted.
      const ready = next.step.keySwitch || (next.step.retry ? await this.retryReady(next.step.waitMs) : this.targetReady(next.step.index));
      if (!ready) {
        this.outcome = { kind: "unusable" };
        continue;
      }
      // The client may have left during a retry's wait: nothing more goes upstream.
      if (this.client.gone) return this.giveUp(clientClosed());
      const response = await this.send(next.step);
      if (response) return response;
    }
  }

  /** What the answer used (its reported usage, else the estimate): the key's tokens this minute, in place of the request's estimate. */
  used(tokens: number): void {
    this.call.key?.used(tokens);
  }

  /** The response `open()` returned was read whole: the path is healthy. */
  answered(): void {
    if (!this.current) return;
    this.endSpan();
    this.context.health.record(this.current.healthKey, { ok: true, latencyMs: this.current.attempt.ms, project: this.call.projectId });
    this.count("ok");
  }

  /** The response broke before anything reached the client: a transient failure; the next `open()` moves on. */
  failedBeforeFirstByte(outcome: string): void {
    if (!this.recordFailure(outcome)) return;
    this.endSpan(outcome);
    this.lastFailure = upstreamFailure(502);
    this.outcome = { kind: "transient" };
  }

  /**
   * The answer (or a stream's event before any reached the client) is larger than the gateway buffers:
   * nothing else is tried, as the request asked for it and any target would answer as large; 502. The
   * path itself answered, so its health does not suffer.
   */
  tooLarge(limitBytes: number): void {
    if (!this.current) return;
    this.current.attempt.outcome = "body_too_large";
    this.endSpan("body_too_large");
    this.context.health.record(this.current.healthKey, { ok: true, latencyMs: this.current.attempt.ms });
    this.count("body_too_large");
    this.lastFailure = upstreamAnswerTooLarge(limitBytes);
    this.outcome = { kind: "rejected" };
  }

  /** A stream that had started failed later: it counts against its path's health. */
  failedAfterFirstByte(outcome: string): void {
    this.recordFailure(outcome);
    this.endSpan(outcome);
  }

  /** A stream's first upstream event: an event on the attempt's span. */
  firstToken(): void {
    this.span.event("first_token");
  }

  /** The call is over: an attempt span still open (the client left mid-answer) ends with its recorded outcome. */
  close(): void {
    const outcome = this.current?.attempt.outcome;
    this.endSpan(outcome === "ok" ? undefined : outcome);
  }

  /** Ends the current attempt's span; `failure`: its outcome, when not an answer. */
  private endSpan(failure?: string): void {
    const { span } = this;
    if (span === NO_SPAN) return;
    this.span = NO_SPAN;
    span.set("gateway.attempt.outcome", failure ?? "ok");
    if (failure) span.fail(failure);
    span.end();
  }

  /** The attempt's span under the request's, with what a reader needs to tell attempts apart; NO_SPAN when not traced. */
  private attemptSpan(step: SendStep, retryReason: string | undefined): TraceSpan {
    const { call } = this;
    // A trace the sampler dropped still sends its (unsampled) traceparent on; only untraced calls skip this.
    if (call.span === NO_SPAN) return NO_SPAN;
    const { target } = call;
    return call.span.child(
      "attempt",
      {
        "gen_ai.operation.name": call.plan.request.operation,
        "gen_ai.provider.name": target.path.provider,
        "gen_ai.request.model": target.model.id,
        "gateway.upstream_model": target.path.upstreamModel,
        "gateway.attempt.number": this.state.sent + 1,
        "gateway.attempt.retry": step.retry,
        "gateway.attempt.key_switch": step.keySwitch === true,
        "gateway.attempt.retry_reason": retryReason,
      },
      "client",
    );
  }

  /** Whether a same-path retry can go: its circuit admits it; then it waits its backoff (cut short if the client leaves). */
  private async retryReady(waitMs: number): Promise<boolean> {
    const { call } = this;
    const { target } = call;
    if (!this.context.health.admit(target.healthKey, call.projectId)) return false;
    this.context.metrics.retries.series(target.path.provider).inc();
    try {
      await sleep(waitMs, undefined, { signal: this.client.goneSignal() });
    } catch {
      // The client left; open() notices.
    }
    return true;
  }

  /** Whether the target at `index` can go: the hold covers it (capped if need be) and its circuit admits it. */
  private targetReady(index: number): boolean {
    const { call } = this;
    const target = call.plan.targets[index]!;
    call.target = target;
    const reserved = call.reservedNano ?? call.plan.holdNano;
    const chosen = chooseCall(target, reserved);
    traceChoice(call.plan.trace, target, chosen);
    if (index === 0 && this.pinGivesWay(chosen, reserved)) return this.skip("skipped: affinity gave way: the balance would cut its answer");
    if (!chosen) return this.skip("skipped: the hold cannot cover this model");
    call.upstream = chosen.upstream;
    if (!this.context.health.admit(target.healthKey, call.projectId)) return this.skip("skipped: circuit open");
    return true;
  }

  /**
   * A conversation's pinned target (the first) whose answer the balance would cut, or cannot cover,
   * gives way to a target the hold covers whole (docs/routing.md, "Affinity"): a whole answer is worth
   * more to the caller than the cache.
   */
  private pinGivesWay(chosen: ChosenCall | undefined, reserved: bigint): boolean {
    const { trace, targets } = this.call.plan;
    if (trace.affinity?.state !== "kept" || (chosen !== undefined && chosen.cappedTo === undefined)) return false;
    if (!targets.slice(1).some((other) => reserved >= other.sized.holdNano)) return false;
    trace.affinity = { state: "broken", reason: "balance" };
    return true;
  }

  private skip(outcome: string): false {
    const { target } = this.call;
    this.call.plan.trace.attempts.push({ model: target.model.id, path: target.path.provider, outcome, ms: 0 });
    this.count(outcome);
    return false;
  }

  /** One attempt: the 200 response, or undefined with the outcome set for the policy. */
  private async send(step: SendStep): Promise<UpstreamResponse | undefined> {
    const { call } = this;
    const { target } = call;
    const { metrics } = this.context;
    const attempt: Attempt = { model: target.model.id, path: target.path.provider, outcome: "ok", ms: 0 };
    // A retry or fallback says why: the outcome of the attempt before it.
    this.span = this.attemptSpan(step, this.state.sent > 0 ? this.current?.attempt.outcome : undefined);
    call.plan.trace.attempts.push(attempt);
    const { healthKey } = target;
    this.current = { attempt, healthKey };
    const started = performance.now();
    if (this.state.sent === 0) metrics.overhead.series("before_upstream").observe((started - call.receivedAt) / 1000);
    if (this.state.sent > 0 && !step.retry && !step.keySwitch)
      metrics.fallbacks.series(this.lastModel === target.model.id ? "path" : "model").inc();
    this.lastModel = target.model.id;
    this.keys.take(call, step, this.span);
    this.sentAt = started;

    let response: UpstreamResponse;
    const watch: DispatchWatch = { dispatched: false };
    try {
      response = await target.provider.send(call.upstream, this.client.upstream, watch, this.span.headers());
    } catch (error) {
      attempt.ms = Math.round(performance.now() - started);
      call.key?.unanswered();
      if (this.client.gone) {
        // The client left while the upstream had the prompt: the prompt is billed. A call still waiting
        // for a connection never reached the provider: nothing is.
        attempt.outcome = "client_closed";
        this.count(attempt.outcome);
        this.endSpan(attempt.outcome);
        if (watch.dispatched) await this.context.money.settlePromptOnly(call);
        else await this.context.money.release(call);
        throw Object.assign(clientClosed(), { cause: error });
      }
      if (error instanceof UpstreamCredentialsError) {
        // The path's own failure, never the caller's to see (the credential's own log line has it): the next path serves.
        this.recordFailure("credentials_unavailable", false);
        this.endSpan("credentials_unavailable");
        this.outcome = { kind: "path_refused" };
        return undefined;
      }
      // A timeout may be this request's doing; a host that cannot be reached is down for everyone.
      const timedOut = isTimeout(error);
      this.recordFailure(timedOut ? "timeout" : "unreachable", timedOut);
      this.endSpan(timedOut ? "timeout" : "unreachable");
      this.outcome = { kind: "transient" };
      return undefined;
    }
    const seconds = (performance.now() - started) / 1000;
    attempt.ms = Math.round(seconds * 1000);
    metrics.upstreamLatency.series(target.path.provider).observe(seconds);
    this.span.set("http.response.status_code", response.statusCode);
    // A 200 counts for the path's health once its body is read: answered() or failed...FirstByte(); its key served.
    if (response.statusCode === 200) {
      call.key?.answeredWith(200);
      return response;
    }
    // A cloud credential refused (expired early, revoked): the next call on this provider fetches a new one.
    if (response.statusCode === 401 || response.statusCode === 403) target.provider.credentialsRefused();
    const unexpected = isUnexpected(response.statusCode);
    // Never relayed as it came (a 307 without its Location is no answer): 502, and the next path is tried.
    const body = unexpected ? await response.body.dump().catch(() => undefined) : await readErrorBody(response);
    const category = unexpected ? undefined : target.adapter.classifyError(body, response.headers);
    // A provider's own failure under a request-like status (Bedrock's quota as a 400) is acted on as what it is.
    const status = effectiveStatus(response.statusCode, category);
    const retryAfter = unexpected ? undefined : responseRetryAfter(response.headers);
    // Another key of the pool serves at once: the failure was the key's, not the path's.
    const anotherKey = this.keys.failed(call, status, retryAfter);
    if (!anotherKey)
      this.context.health.record(healthKey, {
        ok: !isPathFault(status),
        latencyMs: attempt.ms,
        project: isAboutPathItself(status) ? undefined : call.projectId,
      });

    attempt.outcome = `http_${response.statusCode}`;
    this.count(attempt.outcome);
    this.endSpan(attempt.outcome);
    if (unexpected) {
      this.lastFailure = upstreamUnexpectedStatus(response.statusCode);
      this.outcome = { kind: "path_refused" };
      return undefined;
    }
    this.lastFailure = upstreamFailure(status, { category, retryAfterSeconds: retryAfter });
    if (anotherKey) this.outcome = { kind: "key_switch" };
    // The path's quota will not have come back by a retry: the next path, at once.
    else if (PATH_REFUSALS.has(status) || category === "quota_exceeded") this.outcome = { kind: "path_refused" };
    else if (TRANSIENT_STATUSES.has(status))
      this.outcome = { kind: "transient", retryAfterMs: retryAfter === undefined ? undefined : retryAfter * 1000 };
    else this.outcome = { kind: "rejected" };
    return undefined;
  }

  /**
   * The current attempt's outcome in the trace, its path's health and the metric; false without one.
   * `mayBeTheRequests`: the failure may come from this project's request rather than the path.
   */
  private recordFailure(outcome: string, mayBeTheRequests = true): boolean {
    if (!this.current) return false;
    this.current.attempt.outcome = outcome;
    const project = mayBeTheRequests ? this.call.projectId : undefined;
    this.context.health.record(this.current.healthKey, { ok: false, latencyMs: this.current.attempt.ms, project });
    this.count(outcome);
    return true;
  }

  /** Nothing more will be tried: the hold goes back, and the caller gets `failure`. */
  private async giveUp(failure: GatewayError): Promise<never> {
    if (this.reserved) await this.context.money.release(this.call);
    throw failure;
  }

  private count(outcome: string): void {
    this.context.metrics.upstreamAttempts.series(this.call.target.path.provider, outcome.startsWith("skipped") ? "skipped" : outcome).inc();
  }
}

function isTimeout(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === "UND_ERR_HEADERS_TIMEOUT" || code === "UND_ERR_CONNECT_TIMEOUT" || code === "UND_ERR_BODY_TIMEOUT";
}

/** An upstream error body, parsed when it is small JSON (only its structured fields are used); a larger one is not read on. */
async function readErrorBody(response: UpstreamResponse): Promise<unknown> {
  try {
    return JSON.parse(await readTextWithin(response, SMALL_BODY_BYTES)) as unknown;
  } catch {
    return undefined;
  }
}
