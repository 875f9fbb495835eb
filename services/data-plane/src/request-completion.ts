// What is recorded when a request ends, however it ends (answered, refused,
// streamed, or cut by the client): the request metrics and one structured log
// line carrying the request id (which is also the client's x-request-id and
// the hold's id at the control plane). No key, header or message content.
import type { FastifyReply, FastifyRequest } from "fastify";
import type { Gateway } from "./gateway";

export function recordCompletion(gateway: Gateway, request: FastifyRequest, reply: FastifyReply): void {
  const route = request.routeOptions.url ?? "unmatched";
  if (route === "/metrics" || route === "/health") return; // scrapes and probes are not traffic
  const seconds = (performance.now() - request.receivedAt) / 1000;
  const status = reply.raw.writableFinished ? reply.raw.statusCode : 499; // 499: the client left first
  const call = request.call;
  const model = call?.target.model.id ?? "";
  const path = call?.target.path.provider ?? "";
  const stream = call?.body.stream === true;
  gateway.metrics.requests.series(route, String(status), model, path).inc();
  gateway.metrics.requestDuration.series(route, String(stream)).observe(seconds);
  request.log.info(
    {
      route,
      status,
      ms: Math.round(seconds * 1000),
      project: request.identity?.projectId,
      model: model || undefined,
      path: path || undefined,
      stream: call ? stream : undefined,
      attempts: call?.trace.attempts.map((attempt) => attempt.outcome),
    },
    "request completed",
  );
}
