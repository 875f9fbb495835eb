// What the admin routes share to read their input: path parameters, USD amounts, limits' bounds.
import type { FastifyRequest } from "fastify";
import { NANO_PER_USD, parseUsd } from "../billing/money";
import { ADMIN_TOKEN, type Actor } from "../changes/audit-log";
import { invalidRequest } from "../errors";

/** PostgreSQL's integer maximum, the rpm_limit columns'. */
export const MAX_RPM_LIMIT = 2_147_483_647;

export const projectParams = { type: "object", required: ["projectId"], properties: { projectId: { type: "string" } } } as const;
export const keyParams = { type: "object", required: ["keyId"], properties: { keyId: { type: "string" } } } as const;

/** A usage query's days (default: this month so far). */
export const usageQuerystring = {
  type: "object",
  properties: { from: { type: "string", format: "date" }, to: { type: "string", format: "date" } },
} as const;

/** A top-up, cap or budget of at most a billion USD: 1e18 nano-USD, well inside the bigint columns (a larger one was a 500). */
const MAX_USD = 1_000_000_000n;

export function usdAmount(text: string, field: string): bigint {
  const nano = parseUsd(text);
  if (nano === undefined) throw invalidRequest(`${field} must be a USD amount such as "10.00" (at most 9 decimals)`);
  if (nano > MAX_USD * NANO_PER_USD) throw invalidRequest(`${field} must be at most ${MAX_USD} USD`);
  return nano;
}

/** A nullable USD field of a PATCH: undefined leaves it, null clears it. */
export const optionalUsd = (text: string | null | undefined, field: string): bigint | null | undefined =>
  text === undefined ? undefined : text === null ? null : usdAmount(text, field);

/**
 * Who acts through the admin API, recorded with each change (the audit log's actor): the admin token, the
 * one credential today; an operator account's name once accounts exist (decision 0009).
 */
export const operatorOf = (_request: FastifyRequest): Actor => ADMIN_TOKEN;
