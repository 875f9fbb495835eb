// Subscribe, the one server stream: a call without the internal token is answered UNAUTHENTICATED
// and ended at once (it used to be left open with no status, each one holding memory), and the
// streams one control plane holds are bounded (CONTROL_PLANE_MAX_SUBSCRIBERS). A real gRPC server;
// the change feed and catalogue behind it are stand-ins (the stream's first event is all it needs).
import * as grpc from "@grpc/grpc-js";
import {
  AUTH_METADATA_KEY,
  bearer,
  type ControlEvent__Output,
  type ControlPlaneClient,
  ControlPlaneClientConstructor,
  ERROR_CODE_METADATA_KEY,
} from "@gateway/proto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Subscribers } from "../../src/health/subscribers";
import { type RpcDependencies, type RunningGrpcServer, startGrpcServer } from "../../src/rpc/grpc-server";

const TOKEN = "subscribe-limits-token";
const MAX_SUBSCRIBERS = 2;

interface Ended {
  code: grpc.status;
  details: string;
  errorCode: unknown;
}

/** A Subscribe call; `ended` resolves with its status. A deadline bounds a stream the server never answers. */
function subscribe(client: ControlPlaneClient, token: string | undefined, deadlineMs = 60_000) {
  const metadata = new grpc.Metadata();
  if (token !== undefined) metadata.set(AUTH_METADATA_KEY, bearer(token));
  const call = client.Subscribe({ replicaId: "test" }, metadata, { deadline: Date.now() + deadlineMs });
  const first = new Promise<ControlEvent__Output>((resolve) => call.once("data", resolve));
  call.on("error", () => {});
  const ended = new Promise<Ended>((resolve) =>
    call.on("status", (status: grpc.StatusObject) =>
      resolve({ code: status.code, details: status.details, errorCode: status.metadata.get(ERROR_CODE_METADATA_KEY)[0] }),
    ),
  );
  return { call, first, ended };
}

describe("Subscribe streams", () => {
  let server: RunningGrpcServer;
  let client: ControlPlaneClient;
  const subscribers = new Subscribers();

  beforeAll(async () => {
    const deps = {
      internalToken: TOKEN,
      keyCacheTtlSeconds: 30,
      maxSubscribers: MAX_SUBSCRIBERS,
      subscribers,
      changes: { subscribe: () => () => {} },
      catalogue: { snapshot: async () => ({ revision: "r1", models: [] }) },
      onError: (error: unknown) => {
        throw error;
      },
    } as unknown as RpcDependencies;
    server = await startGrpcServer(deps, "127.0.0.1", 0);
    client = new ControlPlaneClientConstructor(`127.0.0.1:${server.port}`, grpc.credentials.createInsecure());
  });

  afterAll(async () => {
    client?.close();
    await server?.shutdown(0);
  });

  it("answers a stream without the token, or with a wrong one, UNAUTHENTICATED and ends it at once (it was left open without a status)", async () => {
    // Before the fix these ran out their 20 s deadline (DEADLINE_EXCEEDED, the client's own status).
    const calls = Array.from({ length: 200 }, (_, index) => subscribe(client, index % 2 === 0 ? undefined : "wrong", 20_000));
    const ended = await Promise.all(calls.map((call) => call.ended));
    expect(new Set(ended.map((status) => JSON.stringify(status)))).toEqual(
      new Set([JSON.stringify({ code: grpc.status.UNAUTHENTICATED, details: "invalid internal token", errorCode: "unauthorized" })]),
    );
    expect(subscribers.list()).toEqual([]);
  });

  it("holds at most CONTROL_PLANE_MAX_SUBSCRIBERS streams: one more is refused UNAVAILABLE overloaded until one ends", async () => {
    const open = Array.from({ length: MAX_SUBSCRIBERS }, () => subscribe(client, TOKEN));
    for (const stream of open) expect((await stream.first).catalogue?.revision).toBe("r1");
    expect(subscribers.list()).toHaveLength(MAX_SUBSCRIBERS);

    const refused = subscribe(client, TOKEN, 20_000);
    expect(await refused.ended).toEqual({
      code: grpc.status.UNAVAILABLE,
      details: `this control plane already holds ${MAX_SUBSCRIBERS} Subscribe streams (CONTROL_PLANE_MAX_SUBSCRIBERS)`,
      errorCode: "overloaded",
    });

    open[0]!.call.cancel();
    await expect.poll(() => subscribers.list().length, { timeout: 10_000 }).toBe(MAX_SUBSCRIBERS - 1);
    const again = subscribe(client, TOKEN);
    expect((await again.first).catalogue?.revision).toBe("r1");
    for (const stream of [open[1]!, again]) stream.call.cancel();
  });
});
