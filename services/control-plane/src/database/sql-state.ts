// The SQLSTATE of a failed statement, wherever the driver put it: pg's `code`, @prisma/adapter-pg's
// `originalCode`, inside Prisma's `meta.driverAdapterError` or an error's `cause` (PGlite's too).

interface Failure {
  code?: unknown;
  originalCode?: unknown;
  cause?: unknown;
  meta?: { driverAdapterError?: unknown };
}

const SQLSTATE = /^[0-9A-Z]{5}$/;

export function sqlStateOf(error: unknown, depth = 0): string | undefined {
  if (typeof error !== "object" || error === null || depth > 4) return undefined;
  const failure = error as Failure;
  for (const code of [failure.originalCode, failure.code])
    if (typeof code === "string" && SQLSTATE.test(code) && !code.startsWith("P")) return code;
  return sqlStateOf(failure.meta?.driverAdapterError, depth + 1) ?? sqlStateOf(failure.cause, depth + 1);
}

/** numeric_value_out_of_range: a value past its column's type (a bigint balance). */
export const OUT_OF_RANGE = "22003";
