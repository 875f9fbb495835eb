// The errors a lost database produces, built with the drivers' own classes in the shapes they were seen
// thrown (a PostgreSQL stopped, restarted, its backends terminated or killed; a closed PGlite), and
// failures that are bugs, not outages.
import { GatewayError } from "@gateway/proto";
import { DriverAdapterError } from "@prisma/driver-adapter-utils";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { isDatabaseUnavailable } from "../../src/database/database-unavailable";
import { Prisma } from "../../src/generated/prisma/client";

function databaseError(code: string, message: string): pg.DatabaseError {
  const error = new pg.DatabaseError(message, message.length, "error");
  error.code = code;
  error.severity = "FATAL";
  return error;
}

function socketError(code: string): Error {
  return Object.assign(new Error(`connect ${code} 127.0.0.1:5432`), { code, errno: -111, syscall: "connect", port: 5432 });
}

const prismaError = (code: string, driverAdapterError?: DriverAdapterError) =>
  new Prisma.PrismaClientKnownRequestError("Invalid `prisma.project.findMany()` invocation", {
    code,
    clientVersion: "6.19.3",
    meta: driverAdapterError ? { driverAdapterError } : {},
  });

/** adapter-pg's error for a SQLSTATE it has no kind for: the pg fields, and the original code and message. */
function postgresAdapterError(code: string, message: string): DriverAdapterError {
  const payload = { originalCode: code, originalMessage: message, kind: "postgres" as const, code, severity: "FATAL", message };
  return new DriverAdapterError({ ...payload, detail: undefined, column: undefined, hint: undefined });
}

describe("isDatabaseUnavailable", () => {
  it.each<[string, unknown]>([
    // pg (the money batches' pool).
    ["a refused connection", socketError("ECONNREFUSED")],
    ["a reset connection", socketError("ECONNRESET")],
    ["a connect timeout", socketError("ETIMEDOUT")],
    ["a name that does not resolve", socketError("ENOTFOUND")],
    ["a server shutting down its sessions (57P01)", databaseError("57P01", "terminating connection due to administrator command")],
    [
      "a server restarting after a crash (57P02)",
      databaseError("57P02", "terminating connection because of crash of another server process"),
    ],
    ["a server in recovery (57P03)", databaseError("57P03", "the database system is in recovery mode")],
    ["a connection failure (08006)", databaseError("08006", "connection failure")],
    ["a connection that could not be established (08001)", databaseError("08001", "could not connect")],
    ["a backend killed mid-query", new Error("Connection terminated unexpectedly")],
    ["a connect timeout of the pool", new Error("timeout exceeded when trying to connect")],
    ["a client unusable after a connection error", new Error("Client has encountered a connection error and is not queryable")],
    [
      "localhost refusing on every address",
      Object.assign(new AggregateError([socketError("ECONNREFUSED"), socketError("ECONNREFUSED")]), { code: "ECONNREFUSED" }),
    ],
    ["a list of refused addresses", new AggregateError([socketError("ECONNREFUSED")])],
    // Prisma through @prisma/adapter-pg.
    [
      "Prisma: can't reach the server (P1001)",
      prismaError("P1001", new DriverAdapterError({ kind: "DatabaseNotReachable", host: "127.0.0.1", port: 5432 })),
    ],
    ["Prisma: the server closed the connection (P1017)", prismaError("P1017", new DriverAdapterError({ kind: "ConnectionClosed" }))],
    ["Prisma: an operation timed out (P1008)", prismaError("P1008", new DriverAdapterError({ kind: "SocketTimeout" }))],
    ["Prisma: timed out waiting for a pool connection (P2024)", prismaError("P2024")],
    [
      "Prisma: a raw query cut by a shutdown (P2010 carrying 57P01)",
      prismaError("P2010", postgresAdapterError("57P01", "terminating connection due to administrator command")),
    ],
    ["adapter-pg: a query cut by a shutdown", postgresAdapterError("57P01", "terminating connection due to administrator command")],
    ["adapter-pg: a server shutting down", postgresAdapterError("57P03", "the database system is shutting down")],
    ["adapter-pg: a refused connection", new DriverAdapterError({ kind: "DatabaseNotReachable", host: "127.0.0.1", port: 5432 })],
    // PGlite.
    ["a closed PGlite", new Error("PGlite is closed")],
    ["a closing PGlite", new Error("PGlite is closing")],
    ["a wrapped outage", new Error("reserve failed", { cause: socketError("ECONNREFUSED") })],
  ])("is true for %s", (_name, error) => {
    expect(isDatabaseUnavailable(error)).toBe(true);
  });

  it.each<[string, unknown]>([
    ["a TypeError", new TypeError("Cannot read properties of undefined (reading 'id')")],
    ["a gateway error", new GatewayError("not_found", "project x not found")],
    ["a unique violation (pg)", databaseError("23505", 'duplicate key value violates unique constraint "projects_pkey"')],
    ["a syntax error (pg)", databaseError("42601", "syntax error at or near")],
    ["too many connections (pg)", databaseError("53300", "sorry, too many clients already")],
    ["a failed money function (P0001)", databaseError("P0001", "amount must not be negative")],
    ["Prisma: a unique violation (P2002)", prismaError("P2002", new DriverAdapterError({ kind: "UniqueConstraintViolation" }))],
    ["Prisma: a record not found (P2025)", prismaError("P2025")],
    ["Prisma: a transaction write conflict (P2034)", prismaError("P2034")],
    ["adapter-pg: a missing table", new DriverAdapterError({ kind: "TableDoesNotExist", table: "projects" })],
    ["adapter-pg: a division by zero", postgresAdapterError("22012", "division by zero")],
    ["a message only mentioning a connection", new Error("could not parse the connection string")],
    ["a numeric code", Object.assign(new Error("x"), { code: 14 })],
    ["undefined", undefined],
    ["a string", "ECONNREFUSED"],
    [
      "a cycle of causes",
      (() => {
        const error: Error & { cause?: unknown } = new Error("loop");
        error.cause = error;
        return error;
      })(),
    ],
  ])("is false for %s", (_name, error) => {
    expect(isDatabaseUnavailable(error)).toBe(false);
  });
});
