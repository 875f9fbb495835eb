// Admin routes for API keys: issue, list, show, limits and expiry, rotation, revocation, usage per key
// (docs/keys.md).
import type { FastifyInstance } from "fastify";
import type { ControlPlaneServices } from "../control-plane-services";
import type { ApiKey } from "../generated/prisma/client";
import { invalidRequest } from "../errors";
import { spendOf } from "../keys/key-service";
import { errorResponses, listOf, ref } from "./admin-schemas";
import { keyParams, MAX_RPM_LIMIT, operatorOf, optionalUsd, projectParams, usageQuerystring } from "./admin-params";
import { presentKey, presentUsage } from "./presenters";
import { MAX_TEXT_LENGTH } from "../text-limits";

/** A rotation's grace period: a day unless given, at most 30 days. */
const DEFAULT_GRACE_SECONDS = 86_400;
const MAX_GRACE_SECONDS = 30 * 86_400;

const limitProperties = {
  rpm_limit: { type: ["integer", "null"], minimum: 1, maximum: MAX_RPM_LIMIT, description: "null: none of its own" },
  daily_cap_usd: { type: ["string", "null"], description: 'USD per UTC day, e.g. "5.00"; null: none' },
  budget_usd: { type: ["string", "null"], description: 'USD in total, e.g. "100.00"; null: none' },
  expires_at: { type: ["string", "null"], format: "date-time", description: "null: never" },
} as const;

interface LimitsBody {
  rpm_limit?: number | null;
  daily_cap_usd?: string | null;
  budget_usd?: string | null;
  expires_at?: string | null;
}

function limitsOf(body: LimitsBody) {
  const expiresAt = body.expires_at === undefined || body.expires_at === null ? body.expires_at : new Date(body.expires_at);
  if (expiresAt && Number.isNaN(expiresAt.getTime())) throw invalidRequest("expires_at must be a date-time");
  return {
    rpmLimit: body.rpm_limit,
    dailyCapNano: optionalUsd(body.daily_cap_usd, "daily_cap_usd"),
    budgetNano: optionalUsd(body.budget_usd, "budget_usd"),
    expiresAt,
  };
}

/** Keys as the API shows them: each with its spend from the ledger and the limits that apply to it. */
async function presentKeys(services: ControlPlaneServices, projectId: string, keys: ApiKey[]) {
  const [spend, all] = await Promise.all([
    services.keys.spend(projectId, keys.length === 1 ? keys[0]!.id : undefined),
    keys.some((key) => key.replacedBy) ? services.keys.list(projectId) : Promise.resolve(keys),
  ]);
  const byId = new Map(all.map((key) => [key.id, key]));
  const limitsKeyOf = (key: ApiKey) => {
    let current = key;
    for (let step = 0; current.replacedBy && byId.has(current.replacedBy) && step < 64; step++) current = byId.get(current.replacedBy)!;
    return current;
  };
  const now = services.ledger.clock.now();
  return keys.map((key) => presentKey(key, spendOf(spend, key.id), now, limitsKeyOf(key)));
}

export function registerKeyRoutes(app: FastifyInstance, services: ControlPlaneServices): void {
  app.post<{ Params: { projectId: string }; Body: ({ name?: string } & LimitsBody) | null }>(
    "/admin/projects/:projectId/keys",
    {
      schema: {
        summary: "Issue an API key, with its own limits if given (the answer is the only time it is shown)",
        params: projectParams,
        body: {
          type: ["object", "null"],
          additionalProperties: false,
          properties: { name: { type: "string", maxLength: MAX_TEXT_LENGTH }, ...limitProperties },
        },
        response: { 201: ref("IssuedKey"), ...errorResponses },
      },
    },
    async (request, reply) => {
      const body = request.body ?? {};
      const limits = limitsOf(body);
      const { key, record } = await services.keys.issue(
        request.params.projectId,
        {
          ...(body.name !== undefined ? { name: body.name } : {}),
          rpmLimit: limits.rpmLimit ?? null,
          dailyCapNano: limits.dailyCapNano ?? null,
          budgetNano: limits.budgetNano ?? null,
          expiresAt: limits.expiresAt ?? null,
        },
        operatorOf(request),
      );
      const [shown] = await presentKeys(services, record.projectId, [record]);
      return reply.code(201).send({ ...shown, key });
    },
  );

  app.get<{ Params: { projectId: string } }>(
    "/admin/projects/:projectId/keys",
    {
      schema: {
        summary: "List a project's keys (hints, never the keys) with their limits and spend",
        params: projectParams,
        response: { 200: listOf("Key"), ...errorResponses },
      },
    },
    async (request) => {
      await services.projects.get(request.params.projectId);
      const keys = await services.keys.list(request.params.projectId);
      return { data: await presentKeys(services, request.params.projectId, keys) };
    },
  );

  app.get<{ Params: { keyId: string } }>(
    "/admin/keys/:keyId",
    { schema: { summary: "Get a key with its limits and spend", params: keyParams, response: { 200: ref("Key"), ...errorResponses } } },
    async (request) => {
      const key = await services.keys.get(request.params.keyId);
      return (await presentKeys(services, key.projectId, [key]))[0];
    },
  );

  app.patch<{ Params: { keyId: string }; Body: { name?: string | null } & LimitsBody }>(
    "/admin/keys/:keyId",
    {
      schema: {
        summary: "Set or clear a key's name, requests per minute, daily cap, total budget or expiry",
        params: keyParams,
        body: {
          type: "object",
          additionalProperties: false,
          properties: { name: { type: ["string", "null"], maxLength: MAX_TEXT_LENGTH }, ...limitProperties },
        },
        response: { 200: ref("Key"), ...errorResponses },
      },
    },
    async (request) => {
      const key = await services.keys.update(
        request.params.keyId,
        { ...(request.body.name !== undefined ? { name: request.body.name } : {}), ...limitsOf(request.body) },
        operatorOf(request),
      );
      return (await presentKeys(services, key.projectId, [key]))[0];
    },
  );

  app.post<{ Params: { keyId: string }; Body: { grace_seconds?: number } | null }>(
    "/admin/keys/:keyId/rotate",
    {
      schema: {
        summary: "Rotate a key: issue its successor (same name and limits); the key works for the grace period, then is revoked",
        params: keyParams,
        body: {
          type: ["object", "null"],
          additionalProperties: false,
          properties: { grace_seconds: { type: "integer", minimum: 0, maximum: MAX_GRACE_SECONDS, description: "default 86400" } },
        },
        response: { 201: ref("RotatedKey"), ...errorResponses },
      },
    },
    async (request, reply) => {
      const rotated = await services.keys.rotate(
        request.params.keyId,
        request.body?.grace_seconds ?? DEFAULT_GRACE_SECONDS,
        operatorOf(request),
      );
      const [successor, previous] = await presentKeys(services, rotated.record.projectId, [rotated.record, rotated.previous]);
      return reply.code(201).send({ key: { ...successor, key: rotated.key }, previous });
    },
  );

  app.post<{ Params: { keyId: string } }>(
    "/admin/keys/:keyId/revoke",
    { schema: { summary: "Revoke a key", params: keyParams, response: { 200: ref("Key"), ...errorResponses } } },
    async (request) => {
      const key = await services.keys.revoke(request.params.keyId, operatorOf(request));
      return (await presentKeys(services, key.projectId, [key]))[0];
    },
  );

  app.get<{ Params: { keyId: string }; Querystring: { from?: string; to?: string } }>(
    "/admin/keys/:keyId/usage",
    {
      schema: {
        summary: "A key's usage per UTC day and model (default: this month so far)",
        params: keyParams,
        querystring: usageQuerystring,
        response: { 200: ref("Usage"), ...errorResponses },
      },
    },
    async (request) => {
      const key = await services.keys.get(request.params.keyId);
      return presentUsage(await services.ledger.usage(key.projectId, request.query.from, request.query.to, key.id));
    },
  );
}
