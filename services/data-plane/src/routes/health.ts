// GET /health (no auth): 200 while this replica can serve, 503 with a reason
// when it cannot (no catalogue yet, control plane gone past the grace period,
// draining).
import type { FastifyInstance } from "fastify";
import type { Gateway } from "../gateway";

export function unavailableReason(gateway: Gateway): string | undefined {
  if (gateway.lifecycle.draining) return "draining";
  if (!gateway.catalogue.current) return "no catalogue received from the control plane yet";
  const silentMs = Date.now() - gateway.controlPlane.lastContactMs;
  if (!gateway.controlPlane.connected && silentMs > gateway.config.controlPlaneGraceMs)
    return "control plane unreachable beyond the grace period";
  return undefined;
}

export function registerHealthRoute(app: FastifyInstance, gateway: Gateway): void {
  app.get("/health", async (_request, reply) => {
    const reason = unavailableReason(gateway);
    if (reason) return reply.code(503).send({ status: "unavailable", reason });
    return {
      status: "ok",
      detail: {
        control_plane: gateway.controlPlane.connected ? "connected" : "reconnecting",
        catalogue_revision: gateway.catalogue.current?.revision,
        rate_limit: gateway.rateLimiter.mode,
        // Access paths whose circuit is not closed (open: skipped; half_open: one probe allowed).
        circuits: gateway.health.circuitViews().filter((view) => view.state !== "closed"),
      },
    };
  });
}
