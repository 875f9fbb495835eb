// Tells a database that cannot be reached (an outage: the caller may retry, elsewhere or later) from
// any other failure (a bug). Shapes as pg, @prisma/adapter-pg, Prisma and PGlite throw them
// (docs/errors.md, "Between the planes").

/** pg's SQLSTATEs for a lost or refused connection: class 08, and 57P01-57P03 (shutdown, crash, not accepting yet). */
const CONNECTION_SQLSTATE = /^(08[0-9A-Z]{3}|57P0[123])$/;
/** Node's socket errors for a server that is down or out of reach. */
const SOCKET_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE", "ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH", "ENETUNREACH"]);
/** Prisma: can't reach the server, reached but timed out, operation timed out, server closed the connection, pool timeout. */
const PRISMA_CODES = new Set(["P1001", "P1002", "P1008", "P1017", "P2024"]);
/** @prisma/adapter-pg's kinds for socket failures (inside a DriverAdapterError's `cause`). */
const ADAPTER_KINDS = new Set(["DatabaseNotReachable", "ConnectionClosed", "SocketTimeout"]);
/** Errors without a code: pg's lost connections and pool timeout, a closed PGlite. */
const MESSAGES =
  /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Client was closed and is not queryable|PGlite is clos(ed|ing))/;

interface Failure {
  code?: unknown;
  originalCode?: unknown;
  kind?: unknown;
  message?: unknown;
  cause?: unknown;
  errors?: unknown;
  meta?: { driverAdapterError?: unknown };
}

export function isDatabaseUnavailable(error: unknown, depth = 0): boolean {
  if (typeof error !== "object" || error === null || depth > 4) return false;
  const failure = error as Failure;
  for (const code of [failure.code, failure.originalCode]) {
    if (typeof code === "string" && (CONNECTION_SQLSTATE.test(code) || SOCKET_CODES.has(code) || PRISMA_CODES.has(code))) return true;
  }
  if (typeof failure.kind === "string" && ADAPTER_KINDS.has(failure.kind)) return true;
  if (typeof failure.message === "string" && MESSAGES.test(failure.message)) return true;
  // Where the driver's own error travels: Error.cause (a DriverAdapterError's is a plain object), Prisma's meta, an AggregateError's list.
  const inner = [failure.cause, failure.meta?.driverAdapterError, ...(Array.isArray(failure.errors) ? failure.errors : [])];
  return inner.some((candidate) => isDatabaseUnavailable(candidate, depth + 1));
}
