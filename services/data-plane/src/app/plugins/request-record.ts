// One completion record per request, streams included (their replies are
// hijacked, so no fastify onResponse hook runs for them): the request metrics
// and one log line carrying the request id (also the client's x-request-id and
// the hold's id at the control plane), the key's id, the trace id, the billed
// units by kind (tokens, images...), the cost, the attempts and the outcome. No
// key, header or message content.
// Hooks on every request take a callback rather than returning a promise: no promise per request and hook.
import { traceIdOf } from "@gateway/proto/tracing";
import type { CostPart } from "../../control-plane/control-plane-client";
import type { GenAiMetrics } from "../../gen-ai-metrics";
import type { CounterFamily, HistogramFamily } from "../../metric-families";
import { usdNumber } from "../../billing/pricing";
import { onResponseClose } from "../../response-close";
import type { Hook, HookReply, HookRequest } from "../../request-context";
import { globalPlugin } from "./global-plugin";

export interface RequestMetrics {
  /** By route, status, answering model and access path. */
  requests: CounterFamily;
  /** By route and stream. */
  requestDuration: HistogramFamily;
  /** The charge over an aggregator's own reported cost, by model. */
  upstreamCostRatio: HistogramFamily;
  /** Model calls: gen_ai_server_request_duration_seconds. */
  genAi: Pick<GenAiMetrics, "completed">;
}

/** A charge further than this from the aggregator's own figure is logged as a warning: the catalogue price is likely stale. */
const COST_TOLERANCE = 0.01;

/** The record's hooks: the arrival (and the record's listener) on request, the body's read before the handler. */
export function requestRecordHooks(metrics: RequestMetrics): { onRequest: Hook; preHandler: Hook } {
  return {
    onRequest: (request, reply, done) => {
      request.receivedAt = performance.now();
      onResponseClose(reply.raw, () => recordCompletion(metrics, request, reply));
      done();
    },
    preHandler: (request, _reply, done) => {
      request.readAt = performance.now();
      done();
    },
  };
}

export const requestRecord = globalPlugin<{ hooks: ReturnType<typeof requestRecordHooks> }>(async (app, { hooks }) => {
  app.decorateRequest("receivedAt", 0);
  app.decorateRequest("readAt", 0);
  app.decorateRequest("call", undefined);
  app.addHook("onRequest", hooks.onRequest);
  app.addHook("preHandler", hooks.preHandler);
});

function recordCompletion(metrics: RequestMetrics, request: HookRequest, reply: HookReply): void {
  const route = request.routeOptions.url ?? "unmatched";
  if (route === "/health") return; // probes are not traffic
  const seconds = (performance.now() - request.receivedAt) / 1000;
  const status = reply.raw.writableFinished ? reply.raw.statusCode : 499; // 499: the client left first
  const call = request.call;
  const model = call?.target.model.id ?? "";
  const path = call?.target.path.provider ?? "";
  const stream = call?.plan.request.stream === true;
  metrics.requests.series(route, String(status), model, path).inc();
  metrics.requestDuration.series(route, String(stream)).observe(seconds);
  if (call) metrics.genAi.completed(call, seconds);
  request.log.info(
    {
      route,
      status,
      ms: Math.round(seconds * 1000),
      project: request.identity?.projectId,
      model: model || undefined,
      path: path || undefined,
      stream: call ? stream : undefined,
      key_id: request.identity?.keyId,
      client_request_id: request.clientRequestId,
      // Traced: our server span's; not traced, the client's own traceparent's, so the line still joins its trace.
      trace_id: request.span?.traceId || traceIdOf(request.headers.traceparent),
      span_id: request.span?.spanId || undefined,
      attempts: call?.plan.trace.attempts.map((attempt) => attempt.outcome),
      outcome: outcomeOf(request, status),
      units: call?.costParts ? unitsByKind(call.costParts) : undefined,
      cost_usd: call?.debitedNano === undefined ? undefined : usdNumber(call.debitedNano),
      upstream_cost_usd: call?.upstreamCostUsd,
    },
    "request completed",
  );
  if (call?.upstreamCostUsd && call.debitedNano !== undefined) {
    const charged = usdNumber(call.debitedNano);
    const ratio = charged / call.upstreamCostUsd;
    metrics.upstreamCostRatio.series(model).observe(ratio);
    if (Math.abs(ratio - 1) > COST_TOLERANCE)
      request.log.warn(
        { model, path, cost_usd: charged, upstream_cost_usd: call.upstreamCostUsd },
        "the charge differs from the aggregator's own cost by more than 1%: is the catalogue price stale?",
      );
  }
}

/** "ok", the error table's code of an error answer, or how a stream that had started ended. */
function outcomeOf(request: HookRequest, status: number): string {
  if (request.errorCode) return request.errorCode;
  const last = request.call?.plan.trace.attempts.at(-1)?.outcome;
  if (last === "stream_failed" || last === "client_closed") return last;
  return status === 499 ? "client_closed" : status < 400 ? "ok" : String(status);
}

/** The billed units by kind (input, output, cached_input, reasoning, per_image...), from the settled cost parts. */
function unitsByKind(parts: readonly CostPart[]): Record<string, number> {
  const units: Record<string, number> = {};
  for (const part of parts) if (part.units > 0) units[part.component] = (units[part.component] ?? 0) + part.units;
  return units;
}
