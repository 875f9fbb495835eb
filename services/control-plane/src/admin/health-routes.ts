// Admin routes for operations: the state of this control plane and of every data plane (their latest
// reports), and the audit log of admin actions.
import type { FastifyInstance } from "fastify";
import { CHANGE_KINDS, type ChangeKind } from "../changes/audit-log";
import type { ControlPlaneServices } from "../control-plane-services";
import { errorResponses, listOf, ref } from "./admin-schemas";
import { presentAuditEvent, presentControlPlane, presentDataPlane } from "./health-presenters";

export function registerHealthRoutes(app: FastifyInstance, services: ControlPlaneServices): void {
  app.get(
    "/admin/health",
    {
      schema: {
        summary: "This control plane's state and every data plane's latest report, with a status in words",
        response: { 200: ref("Health"), ...errorResponses },
      },
    },
    async (request) => {
      const [controlPlane, reports] = await Promise.all([
        services.controlPlaneState.read(),
        // The database away: the control plane's own state still answers, and says so.
        services.reports.latest().catch((error: unknown) => {
          request.log.warn({ err: error }, "data-plane reports unreadable");
          return null;
        }),
      ]);
      return { control_plane: presentControlPlane(controlPlane), data_planes: reports?.map(presentDataPlane) ?? null };
    },
  );

  app.get<{ Querystring: { kind?: ChangeKind; before?: string; limit?: number } }>(
    "/admin/audit-log",
    {
      schema: {
        summary: "Admin actions (the change events), newest first; filtered by kind; `before` (an event id) pages back",
        querystring: {
          type: "object",
          properties: {
            kind: { type: "string", enum: CHANGE_KINDS },
            before: { type: "string", pattern: "^[0-9]{1,18}$", description: "the id of the oldest event already shown" },
            limit: { type: "integer", minimum: 1, maximum: 500, description: "default 50" },
          },
        },
        response: { 200: listOf("AuditEvent"), ...errorResponses },
      },
    },
    async (request) => {
      const { kind, before, limit } = request.query;
      const entries = await services.auditLog.list({ kind, limit: limit ?? 50, ...(before ? { before: BigInt(before) } : {}) });
      return { data: entries.map(presentAuditEvent) };
    },
  );
}
