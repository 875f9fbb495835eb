// Admin routes for projects, their limits, balances, ledgers, holds and usage (keys: key-routes.ts).
import type { FastifyInstance } from "fastify";
import { invalidRequest } from "../errors";
import type { HoldStatusName } from "../billing/ledger-service";
import type { ControlPlaneServices } from "../control-plane-services";
import { errorResponses, HOLD_STATUSES, listOf, ref } from "./admin-schemas";
import { MAX_RPM_LIMIT, operatorOf, projectParams, usageQuerystring, usdAmount } from "./admin-params";
import { MAX_TEXT_LENGTH } from "../text-limits";
import { presentBalance, presentHold, presentLedgerEntry, presentProject, presentUsage } from "./presenters";

export function registerProjectRoutes(app: FastifyInstance, services: ControlPlaneServices): void {
  app.post<{ Body: { id?: string; name: string } }>(
    "/admin/projects",
    {
      schema: {
        summary: "Create a project (its id is generated unless given)",
        body: {
          type: "object",
          required: ["name"],
          additionalProperties: false,
          properties: { id: { type: "string" }, name: { type: "string", minLength: 1, maxLength: MAX_TEXT_LENGTH } },
        },
        response: { 201: ref("Project"), ...errorResponses },
      },
    },
    async (request, reply) => {
      const project = await services.projects.create(request.body, operatorOf(request));
      return reply.code(201).send(presentProject(project));
    },
  );

  app.get(
    "/admin/projects",
    { schema: { summary: "List the projects", response: { 200: listOf("Project"), ...errorResponses } } },
    async () => ({
      data: (await services.projects.list()).map(presentProject),
    }),
  );

  app.get<{ Params: { projectId: string } }>(
    "/admin/projects/:projectId",
    { schema: { summary: "Get a project", params: projectParams, response: { 200: ref("Project"), ...errorResponses } } },
    async (request) => presentProject(await services.projects.get(request.params.projectId)),
  );

  app.patch<{ Params: { projectId: string }; Body: { rpm_limit?: number | null; daily_cap_usd?: string | null } }>(
    "/admin/projects/:projectId/limits",
    {
      schema: {
        summary: "Set or clear a project's requests per minute and daily spend cap",
        params: projectParams,
        body: {
          type: "object",
          additionalProperties: false,
          // The column is a PostgreSQL integer: a larger limit (1e308 is an integer to JSON Schema) was a 500.
          properties: {
            rpm_limit: { type: ["integer", "null"], minimum: 0, maximum: MAX_RPM_LIMIT },
            daily_cap_usd: { type: ["string", "null"] },
          },
        },
        response: { 200: ref("Project"), ...errorResponses },
      },
    },
    async (request) => {
      const { rpm_limit, daily_cap_usd } = request.body;
      const project = await services.projects.setLimits(
        request.params.projectId,
        {
          ...(rpm_limit !== undefined ? { rpmLimit: rpm_limit } : {}),
          ...(daily_cap_usd !== undefined
            ? { dailyCapNano: daily_cap_usd === null ? null : usdAmount(daily_cap_usd, "daily_cap_usd") }
            : {}),
        },
        operatorOf(request),
      );
      return presentProject(project);
    },
  );

  app.post<{ Params: { projectId: string }; Body: { amount_usd: string; idempotency_key: string } }>(
    "/admin/projects/:projectId/topups",
    {
      schema: {
        summary: "Credit a project, once per idempotency key",
        params: projectParams,
        body: {
          type: "object",
          required: ["amount_usd", "idempotency_key"],
          additionalProperties: false,
          properties: { amount_usd: { type: "string" }, idempotency_key: { type: "string", minLength: 1, maxLength: MAX_TEXT_LENGTH } },
        },
        // 201 credited; 200 the idempotency key had already credited it (replayed, nothing new).
        response: { 200: ref("TopUp"), 201: ref("TopUp"), ...errorResponses },
      },
    },
    async (request, reply) => {
      const amount = usdAmount(request.body.amount_usd, "amount_usd");
      if (amount <= 0n) throw invalidRequest("amount_usd must be positive");
      const result = await services.ledger.topUp(request.params.projectId, amount, request.body.idempotency_key, operatorOf(request));
      const balance = await services.ledger.balance(request.params.projectId);
      return reply.code(result.replayed ? 200 : 201).send({
        entry_id: result.entryId.toString(),
        amount: { nano: result.amountNano.toString() },
        replayed: result.replayed,
        balance: presentBalance(balance),
      });
    },
  );

  app.get<{ Params: { projectId: string } }>(
    "/admin/projects/:projectId/balance",
    {
      schema: {
        summary: "A project's balance, holds, available amount and spend today",
        params: projectParams,
        response: { 200: ref("Balance"), ...errorResponses },
      },
    },
    async (request) => presentBalance(await services.ledger.balance(request.params.projectId)),
  );

  app.get<{
    Params: { projectId: string };
    Querystring: {
      limit?: number;
      kind?: "topup" | "debit" | "adjustment";
      request_id?: string;
      key_id?: string;
      from?: string;
      to?: string;
      before?: string;
    };
  }>(
    "/admin/projects/:projectId/ledger",
    {
      schema: {
        summary: "A project's ledger, newest first; filtered by kind, request, key and UTC days; `before` (an entry id) pages back",
        params: projectParams,
        querystring: {
          type: "object",
          properties: {
            limit: { type: "integer", minimum: 1, maximum: 10000 },
            kind: { type: "string", enum: ["topup", "debit", "adjustment"] },
            request_id: { type: "string", minLength: 1 },
            key_id: { type: "string", minLength: 1 },
            from: { type: "string", format: "date" },
            to: { type: "string", format: "date" },
            before: { type: "string", pattern: "^[0-9]{1,18}$", description: "the id of the oldest entry already shown" },
          },
        },
        response: { 200: listOf("LedgerEntry"), ...errorResponses },
      },
    },
    async (request) => {
      const { limit, kind, request_id, key_id, from, to, before } = request.query;
      const entries = await services.ledger.ledger(request.params.projectId, limit ?? 100, {
        kind,
        requestId: request_id,
        keyId: key_id,
        from,
        to,
        ...(before ? { before: BigInt(before) } : {}),
      });
      return { data: (entries as Parameters<typeof presentLedgerEntry>[0][]).map(presentLedgerEntry) };
    },
  );

  app.get<{
    Params: { projectId: string };
    Querystring: { status?: HoldStatusName; limit?: number; request_id?: string; from?: string; to?: string; before?: string };
  }>(
    "/admin/projects/:projectId/holds",
    {
      schema: {
        summary:
          "A project's holds and budget leases by status (default active), newest first, or one request's hold whatever its status; filtered by UTC days; `before` (a request id) pages back",
        params: projectParams,
        querystring: {
          type: "object",
          properties: {
            status: { type: "string", enum: HOLD_STATUSES },
            limit: { type: "integer", minimum: 1, maximum: 10000 },
            request_id: { type: "string", minLength: 1 },
            from: { type: "string", format: "date", description: "first UTC day (the day the hold was placed)" },
            to: { type: "string", format: "date", description: "last UTC day" },
            before: { type: "string", minLength: 1, description: "the request id of the oldest hold already shown" },
          },
        },
        response: { 200: listOf("Hold"), ...errorResponses },
      },
    },
    async (request) => {
      const { status, limit, request_id, from, to, before } = request.query;
      const holds = await services.ledger.holds(request.params.projectId, status ?? "active", limit ?? 100, {
        requestId: request_id,
        from,
        to,
        before,
      });
      return { data: holds.map(presentHold) };
    },
  );

  app.get<{ Params: { projectId: string }; Querystring: { from?: string; to?: string } }>(
    "/admin/projects/:projectId/usage",
    {
      schema: {
        summary: "Usage per UTC day and model (default: this month so far)",
        params: projectParams,
        querystring: usageQuerystring,
        response: { 200: ref("Usage"), ...errorResponses },
      },
    },
    async (request) => presentUsage(await services.ledger.usage(request.params.projectId, request.query.from, request.query.to)),
  );
}
