// GET /health (no auth): 200 while this replica can serve, 503 with a reason
// when it cannot (no catalogue yet, control plane gone past the grace period,
// draining). Nothing more for anonymous callers: the details (link, circuits by
// access path, catalogue revision) are on the metrics port's GET /health. The
// state itself is health/health-state.ts's, also reported to the control plane.
import type { FastifyInstance } from "fastify";
import { healthAnswer, type HealthSources } from "../health/health-state";

export function registerHealthRoute(app: FastifyInstance, sources: HealthSources): void {
  app.get("/health", async (_request, reply) => {
    const { status, body } = healthAnswer(sources, false);
    return reply.code(status).send(body);
  });
}
