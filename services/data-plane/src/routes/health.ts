// GET /health (no auth): 200 while this replica can serve, 503 with a reason
// when it cannot (no catalogue yet, control plane gone past the grace period,
// draining). The state itself is health/health-state.ts's, also reported to the control plane.
import type { FastifyInstance } from "fastify";
import { healthDetail, type HealthSources, unavailableReason } from "../health/health-state";

export function registerHealthRoute(app: FastifyInstance, sources: HealthSources): void {
  app.get("/health", async (_request, reply) => {
    const reason = unavailableReason(sources);
    if (reason) return reply.code(503).send({ status: "unavailable", reason });
    return { status: "ok", detail: healthDetail(sources) };
  });
}
