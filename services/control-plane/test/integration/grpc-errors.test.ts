// How a failed call reaches a data plane: a table error as its gRPC status with its code in metadata,
// a bug as INTERNAL, a database that cannot be reached as UNAVAILABLE. The outages are real: a
// PostgreSQL reached through a TCP proxy the test cuts, and a PGlite the test closes.
import * as grpc from "@grpc/grpc-js";
import { AUTH_METADATA_KEY, bearer, ControlPlaneClientConstructor, ERROR_CODE_METADATA_KEY, GatewayError } from "@gateway/proto";
import { mkdtempSync, rmSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { scratchPgliteDir } from "../../../../deploy/test/pglite-template";
import { parseControlPlaneConfig } from "../../src/config";
import { startControlPlane, type RunningControlPlane } from "../../src/control-plane";
import { notFound } from "../../src/errors";
import { startGrpcServer, type RpcDependencies, type RunningGrpcServer } from "../../src/rpc/grpc-server";
import { scratchDatabase, type ScratchDatabase } from "../harness/scratch-database";
import { ADMIN_TOKEN } from "../../src/changes/audit-log";

const TOKEN = "grpc-errors-token";

interface Failure {
  code: grpc.status;
  details: string;
  errorCode: unknown;
}

/** Calls `method` on the server at `address`; resolves with the failure (the call is expected to fail). */
async function failure(address: string, method: string, request: object, token = TOKEN): Promise<Failure> {
  const client = new ControlPlaneClientConstructor(address, grpc.credentials.createInsecure());
  const metadata = new grpc.Metadata();
  metadata.set(AUTH_METADATA_KEY, bearer(token));
  try {
    const error = await new Promise<grpc.ServiceError>((resolve, reject) => {
      (client as unknown as Record<string, (r: object, m: grpc.Metadata, cb: (e: grpc.ServiceError | null) => void) => void>)[method]!(
        request,
        metadata,
        (caught) => (caught ? resolve(caught) : reject(new Error(`${method} succeeded`))),
      );
    });
    return { code: error.code, details: error.details, errorCode: error.metadata.get(ERROR_CODE_METADATA_KEY)[0] };
  } finally {
    client.close();
  }
}

const reserveRequest = (projectId: string, requestId: string) => ({ requestId, projectId, amountNano: "1", model: "m", accessPath: "p" });

describe("gRPC errors from the table", () => {
  let server: RunningGrpcServer;
  let address: string;
  let next: unknown;
  const logged: unknown[] = [];

  beforeAll(async () => {
    const failing = async () => {
      throw next;
    };
    const deps = {
      internalToken: TOKEN,
      keyCacheTtlSeconds: 30,
      keys: { validate: failing },
      onError: (error: unknown) => logged.push(error),
    } as unknown as RpcDependencies;
    server = await startGrpcServer(deps, "127.0.0.1", 0);
    address = `127.0.0.1:${server.port}`;
  });

  afterAll(async () => {
    await server?.shutdown(0);
  });

  it("sends a table error as its gRPC status, its message as details and its code in metadata, without logging it", async () => {
    next = notFound("project x");
    expect(await failure(address, "validateKey", { key: "k" })).toEqual({
      code: grpc.status.NOT_FOUND,
      details: "project x not found",
      errorCode: "not_found",
    });
    next = new GatewayError("conflict", "busy");
    expect(await failure(address, "validateKey", { key: "k" })).toEqual({
      code: grpc.status.FAILED_PRECONDITION,
      details: "busy",
      errorCode: "conflict",
    });
    expect(logged).toEqual([]);
  });

  it("refuses a wrong internal token as unauthorized", async () => {
    expect(await failure(address, "validateKey", { key: "k" }, "wrong")).toEqual({
      code: grpc.status.UNAUTHENTICATED,
      details: "invalid internal token",
      errorCode: "unauthorized",
    });
  });

  it("sends a bug as INTERNAL internal_error and logs it", async () => {
    const bug = new TypeError("Cannot read properties of undefined (reading 'id')");
    next = bug;
    expect(await failure(address, "validateKey", { key: "k" })).toEqual({
      code: grpc.status.INTERNAL,
      details: "the control plane could not complete the request",
      errorCode: "internal_error",
    });
    expect(logged.at(-1)).toBe(bug);
  });

  it("sends a database that cannot be reached as UNAVAILABLE control_plane_unavailable", async () => {
    next = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED", errno: -111, syscall: "connect" });
    expect(await failure(address, "validateKey", { key: "k" })).toEqual({
      code: grpc.status.UNAVAILABLE,
      details: "the control plane cannot reach its database",
      errorCode: "control_plane_unavailable",
    });
    expect(logged.at(-1)).toBe(next); // an outage is still worth an operator's attention
  });
});

const config = (extra: Record<string, string>) =>
  parseControlPlaneConfig({
    GATEWAY_ALLOW_WEAK_TOKENS: "true", // short test tokens
    GATEWAY_INTERNAL_TOKEN: TOKEN,
    GATEWAY_ADMIN_TOKEN: "admin",
    CONTROL_PLANE_GRPC_PORT: "0",
    CONTROL_PLANE_ADMIN_PORT: "0",
    METRICS_PORT: "0",
    LOG_LEVEL: "silent",
    ...extra,
  });

// Each test starts a control plane of its own: more time than the default on a busy machine.
describe("gRPC errors when the database goes away", { timeout: 180_000 }, () => {
  it("PostgreSQL: answers UNAVAILABLE control_plane_unavailable for key checks (Prisma) and money calls (pg) once the server is cut off", async () => {
    const database: ScratchDatabase = await scratchDatabase("grpc_errors_outage");
    const target = new URL(database.url);
    // A TCP proxy in front of PostgreSQL: cutting it is the server going away, without touching the shared server.
    const sockets = new Set<net.Socket>();
    const proxy = net.createServer((client) => {
      const upstream = net.connect(Number(target.port || 5432), target.hostname);
      for (const socket of [client, upstream]) {
        sockets.add(socket);
        socket.on("error", () => {});
        socket.on("close", () => sockets.delete(socket));
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
    const proxied = new URL(database.url);
    proxied.host = `127.0.0.1:${(proxy.address() as net.AddressInfo).port}`;
    const dataDir = mkdtempSync(path.join(os.tmpdir(), "grpc-errors-"));
    let controlPlane: RunningControlPlane | undefined;
    try {
      controlPlane = await startControlPlane(config({ DATABASE_URL: proxied.toString(), GATEWAY_DATA_DIR: dataDir }));
      const projectId = (await controlPlane.services.projects.create({ name: "outage" }, ADMIN_TOKEN)).id;
      const key = (await controlPlane.services.keys.issue(projectId, { name: "k" }, ADMIN_TOKEN)).key;
      await controlPlane.services.ledger.topUp(projectId, 1_000_000n, "seed", ADMIN_TOKEN);

      await new Promise<void>((resolve) => {
        proxy.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      });
      const unavailable = {
        code: grpc.status.UNAVAILABLE,
        details: "the control plane cannot reach its database",
        errorCode: "control_plane_unavailable",
      };
      expect(await failure(controlPlane.grpcAddress, "validateKey", { key })).toEqual(unavailable);
      expect(await failure(controlPlane.grpcAddress, "reserve", reserveRequest(projectId, "r1"))).toEqual(unavailable);
      expect(
        await failure(controlPlane.grpcAddress, "settle", { ...reserveRequest(projectId, "r1"), inputTokens: 1, outputTokens: 1 }),
      ).toEqual(unavailable);
    } finally {
      await controlPlane?.close();
      proxy.close();
      rmSync(dataDir, { recursive: true, force: true });
      await database.drop();
    }
  });

  it("PGlite: answers UNAVAILABLE control_plane_unavailable once the database is closed", async () => {
    const dataDir = scratchPgliteDir("grpc-errors-");
    const controlPlane = await startControlPlane(config({ GATEWAY_DATA_DIR: dataDir }));
    try {
      const projectId = (await controlPlane.services.projects.create({ name: "closed" }, ADMIN_TOKEN)).id;
      const key = (await controlPlane.services.keys.issue(projectId, { name: "k" }, ADMIN_TOKEN)).key;
      await controlPlane.database.close();
      const unavailable = {
        code: grpc.status.UNAVAILABLE,
        details: "the control plane cannot reach its database",
        errorCode: "control_plane_unavailable",
      };
      expect(await failure(controlPlane.grpcAddress, "validateKey", { key })).toEqual(unavailable);
      expect(await failure(controlPlane.grpcAddress, "reserve", reserveRequest(projectId, "r1"))).toEqual(unavailable);
    } finally {
      await controlPlane.close().catch(() => {}); // its database is already closed
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
