// The ReportState call against a real gRPC server on port 0: the report arrives whole with the shared
// token, and a report the control plane answers too late fails alone: it never opens the stall circuit
// that turns requests away (a report is not a request's business).
import * as grpc from "@grpc/grpc-js";
import { AUTH_METADATA_KEY, ControlPlaneService, type ControlPlaneHandlers, type DataPlaneReport__Output } from "@gateway/proto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ControlPlaneClientWrapper } from "../../src/control-plane/control-plane-client";

let server: grpc.Server;
let address = "";
const received: { report: DataPlaneReport__Output; authorization: unknown }[] = [];
let hang = false;

const handlers: Partial<ControlPlaneHandlers> = {
  ReportState: (call, callback) => {
    if (hang) return; // never answered: the caller's deadline runs out
    received.push({ report: call.request, authorization: call.metadata.get(AUTH_METADATA_KEY)[0] });
    callback(null, {});
  },
  ValidateKey: (_call, callback) => callback(null, { valid: true, projectId: "p", keyId: "k", cacheTtlSeconds: 1 }),
};

beforeAll(async () => {
  server = new grpc.Server();
  server.addService(ControlPlaneService, handlers as ControlPlaneHandlers);
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (error, bound) => (error ? reject(error) : resolve(bound))),
  );
  address = `127.0.0.1:${port}`;
});
afterAll(() => server.forceShutdown());

describe("ReportState", () => {
  it("sends the report with the shared token", async () => {
    const client = new ControlPlaneClientWrapper(address, "token", 2_000);
    await client.reportState({
      replicaId: "dp-1",
      version: "1.0.0",
      startedAtUnixMs: "1700000000000",
      reportIntervalMs: 5000,
      controlPlaneLink: "connected",
      controlPlaneCalls: "in_time",
      catalogueRevision: "4",
      rateLimit: "redis",
      circuits: [{ path: "openai/a", state: "open", consecutiveFailures: 5, opens: 2, projectsOpen: 1 }],
    });
    expect(received).toHaveLength(1);
    expect(received[0]!.authorization).toBe("Bearer token");
    expect(received[0]!.report).toMatchObject({
      replicaId: "dp-1",
      startedAtUnixMs: "1700000000000",
      catalogueRevision: "4",
      draining: false,
      circuits: [{ path: "openai/a", state: "open", consecutiveFailures: 5, opens: 2, projectsOpen: 1 }],
    });
    client.close();
  });

  it("fails alone when answered too late: the stall circuit stays closed and requests still go", async () => {
    const client = new ControlPlaneClientWrapper(address, "token", 200);
    hang = true;
    await expect(client.reportState({ replicaId: "dp-1" })).rejects.toMatchObject({ kind: "control_plane_unavailable" });
    hang = false;
    expect(client.stall.stalled).toBe(false);
    expect(await client.validateKey("sk")).toMatchObject({ valid: true });
    client.close();
  });
});
