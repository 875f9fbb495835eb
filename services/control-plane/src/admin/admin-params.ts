// What the admin routes share to read their input: path parameters, USD amounts, limits' bounds.
import { NANO_PER_USD, parseUsd } from "../billing/money";
import { invalidRequest } from "../errors";

/** PostgreSQL's integer maximum, the rpm_limit columns'. */
export const MAX_RPM_LIMIT = 2_147_483_647;

export const projectParams = { type: "object", required: ["projectId"], properties: { projectId: { type: "string" } } } as const;
export const keyParams = { type: "object", required: ["keyId"], properties: { keyId: { type: "string" } } } as const;

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
