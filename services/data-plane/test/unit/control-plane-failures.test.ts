// How the data plane takes a failed control-plane call, against a real gRPC
// server on port 0: an outage is ridden out (503, stale keys within the
// grace period, quick retries of money calls), the control plane's own
// failure (INTERNAL, a bug) is not: 500, no stale key, straight to the
// background retry.
import * as grpc from "@grpc/grpc-js";
import { ControlPlaneService, type ControlPlaneHandlers } from "@gateway/proto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KeyCache } from "../../src/auth/key-cache";
import { RequestBilling } from "../../src/billing/request-billing";
import { ControlPlaneClientWrapper } from "../../src/control-plane/control-plane-client";
import type { GatewayError } from "../../src/errors";

/** What every call answers next: a status to fail with, or a valid key. */
let failWith: grpc.status | undefined;
let settleCalls = 0;
let server: grpc.Server;
let address = "";

const fail = (callback: (error: Partial<grpc.StatusObject>) => void) => callback({ code: failWith!, details: "scripted" });
const handlers: Partial<ControlPlaneHandlers> = {
  ValidateKey: (_call, callback) => {
    if (failWith !== undefined) return fail(callback);
    callback(null, { valid: true, projectId: "p", keyId: "k", cacheTtlSeconds: 1 });
  },
  Settle: (_call, callback) => {
    settleCalls++;
    if (failWith !== undefined) return fail(callback);
    callback(null, { outcome: "SETTLED", debitedNano: "5" });
  },
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

async function rejection(promise: Promise<unknown>): Promise<GatewayError> {
  return promise.then(
    () => {
      throw new Error("expected the call to fail");
    },
    (error: GatewayError) => error,
  );
}

describe("a failed control-plane call", () => {
  it.each<[string, grpc.status, string, number]>([
    ["an outage", grpc.status.UNAVAILABLE, "control_plane_unavailable", 503],
    ["a deadline", grpc.status.DEADLINE_EXCEEDED, "control_plane_unavailable", 503],
    ["the control plane's own failure", grpc.status.INTERNAL, "internal_error", 500],
    ["a refused internal token", grpc.status.UNAUTHENTICATED, "internal_error", 500],
  ])("is %s: %s", async (_case, status, kind, httpStatus) => {
    const client = new ControlPlaneClientWrapper(address, "token", 2_000);
    failWith = status;
    const error = await rejection(client.validateKey("sk"));
    expect([error.kind, error.status]).toEqual([kind, httpStatus]);
    client.close();
  });

  it("is an older control plane's UNIMPLEMENTED (CheckSpend during a rolling upgrade): 503 to retry, not a bug", async () => {
    const client = new ControlPlaneClientWrapper(address, "token", 2_000);
    const error = await rejection(client.checkSpend("p", "k")); // this server has no CheckSpend handler
    expect([error.kind, error.status]).toEqual(["control_plane_unavailable", 503]);
    client.close();
  });

  it("keeps a validated key working through an outage, but not through the control plane's failure", async () => {
    const client = new ControlPlaneClientWrapper(address, "token", 2_000);
    const keys = new KeyCache(client, 0.05, 60_000); // entries go stale at once; a minute of grace
    failWith = undefined;
    expect(await keys.validate("sk")).toMatchObject({ projectId: "p" });
    await new Promise((resolve) => setTimeout(resolve, 100));
    failWith = grpc.status.UNAVAILABLE;
    expect(await keys.validate("sk")).toMatchObject({ projectId: "p" });
    failWith = grpc.status.INTERNAL;
    expect((await rejection(Promise.resolve(keys.validate("sk")))).kind).toBe("internal_error");
    client.close();
  });

  it("retries a settle at once through an outage, and sends one that met a failure to the background retry", async () => {
    const client = new ControlPlaneClientWrapper(address, "token", 2_000);
    const logged: string[] = [];
    const billing = new RequestBilling(client, {
      warn: (_o, message) => logged.push(`warn ${message}`),
      error: (_o, message) => logged.push(`error ${message}`),
    });
    const settle = { requestId: "r", projectId: "p", amountNano: 5n, model: "m", accessPath: "openai", inputTokens: 1, outputTokens: 1 };

    failWith = grpc.status.UNAVAILABLE;
    settleCalls = 0;
    expect(await billing.settle(settle)).toBe(5n);
    expect(settleCalls).toBe(4); // the first try and three quick retries
    expect(logged).toEqual(["warn control plane unreachable: settle/release queued for retry"]);

    failWith = grpc.status.INTERNAL;
    settleCalls = 0;
    logged.length = 0;
    expect(await billing.settle({ ...settle, requestId: "s" })).toBe(5n);
    expect(settleCalls).toBe(1);
    expect(logged).toEqual(["error control plane failed a settle/release: queued for retry"]);
    expect(billing.pendingCount).toBe(2);

    failWith = undefined;
    await billing.flush(5_000);
    expect(billing.pendingCount).toBe(0);
    client.close();
  });
});
