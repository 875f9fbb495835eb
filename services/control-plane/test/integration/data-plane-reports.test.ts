// Data planes report their state (ReportState) and GET /admin/health shows every one of them, whichever
// control-plane replica they reach and whichever replica is asked: two control planes on one PostgreSQL
// database, two data planes, one on each. A data plane that stops goes silent after 3 intervals, and its
// row is pruned after the retention period. A report with a wrong token is refused.
import { createHash } from "node:crypto";
import * as grpc from "@grpc/grpc-js";
import { AUTH_METADATA_KEY, bearer, ControlPlaneClientConstructor } from "@gateway/proto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type GatewayStack, startStack } from "../../../data-plane/test/harness/gateway-stack";

interface DataPlaneHealth {
  replica_id: string;
  status: string;
  reasons: string[];
  control_plane_replica: string;
  control_plane_link: string;
  control_plane_calls: string;
  rate_limit: string;
  catalogue_revision: string | null;
  circuits: unknown[];
  key_pools: { pool: string; source: string; keys: { fingerprint: string; state: string }[] }[];
  version: string;
  report_interval_ms: number;
  reported_at: string;
  age_ms: number;
}
interface Health {
  control_plane: {
    replica_id: string;
    version: string;
    uptime_seconds: number;
    database: { reachable: boolean; round_trip_ms: number | null };
    catalogue_revision: string | null;
    subscribed_data_planes: { replica_id: string }[];
  };
  data_planes: DataPlaneHealth[] | null;
}

// A second: silent after three, so a loaded machine's pauses do not make a live data plane look silent.
const INTERVAL_MS = 1000;

describe("data-plane state reports", () => {
  let stack: GatewayStack;

  beforeAll(async () => {
    stack = await startStack({
      backend: "postgresql",
      controlPlanes: 2,
      dataPlanes: 2,
      dataPlaneEnv: { DATA_PLANE_REPORT_INTERVAL_MS: String(INTERVAL_MS), GATEWAY_VERSION: "1.2.3-test" },
      controlPlaneEnv: { DATA_PLANE_REPORT_RETENTION_MS: "8000" },
    });
  });

  afterAll(async () => {
    await stack?.stop();
  });

  const health = async (controlPlane: number): Promise<Health> => {
    const answer = await stack.admin<Health>("GET", "/admin/health", undefined, controlPlane);
    expect(answer.status).toBe(200);
    return answer.json;
  };
  const replicas = (answer: Health) => answer.data_planes?.map((dataPlane) => dataPlane.replica_id);

  it("shows both data planes' reports through either control-plane replica, and each replica's own state", async () => {
    // The first report may go before the first catalogue arrives (unavailable); the next, at once, says ok.
    await expect
      .poll(async () => (await health(0)).data_planes?.map((dataPlane) => `${dataPlane.replica_id} ${dataPlane.status}`), {
        timeout: 10_000,
      })
      .toEqual(["test-data-plane-0 ok", "test-data-plane-1 ok"]);
    const [first, second] = [await health(0), await health(1)];
    expect(replicas(second)).toEqual(["test-data-plane-0", "test-data-plane-1"]);
    // Each replica speaks for itself, and each data plane is subscribed to its own control plane.
    expect(first.control_plane.replica_id).not.toBe(second.control_plane.replica_id);
    expect(first.control_plane.subscribed_data_planes.map((subscriber) => subscriber.replica_id)).toEqual(["test-data-plane-0"]);
    expect(second.control_plane.subscribed_data_planes.map((subscriber) => subscriber.replica_id)).toEqual(["test-data-plane-1"]);
    expect(first.control_plane.database.reachable).toBe(true);
    expect(first.control_plane.database.round_trip_ms).toBeGreaterThanOrEqual(0);
    expect(first.control_plane.catalogue_revision).toMatch(/^\d+$/);

    const [dataPlane0, dataPlane1] = first.data_planes!;
    expect(dataPlane0).toMatchObject({
      status: "ok",
      reasons: [],
      version: "1.2.3-test",
      control_plane_replica: first.control_plane.replica_id,
      control_plane_link: "connected",
      control_plane_calls: "in_time",
      catalogue_revision: first.control_plane.catalogue_revision,
      circuits: [],
      report_interval_ms: INTERVAL_MS,
    });
    expect(dataPlane1!.control_plane_replica).toBe(second.control_plane.replica_id);
    // The same state its own /health computes (its details: on its metrics port).
    const own = await stack.dataPlaneHealth<{ rate_limit: string; catalogue_revision: string }>(1);
    expect(dataPlane1).toMatchObject({ rate_limit: own.detail.rate_limit, catalogue_revision: own.detail.catalogue_revision });
    expect(dataPlane0!.age_ms).toBeLessThan(3 * INTERVAL_MS);
    // Its one provider key, a pool of one, by fingerprint only (sha256's first 8 hex characters).
    const fingerprint = createHash("sha256").update("upstream-secret-key").digest("hex").slice(0, 8);
    expect(dataPlane0!.key_pools).toEqual([
      {
        pool: "OPENAI_API_KEY",
        source: "OPENAI_API_KEY",
        keys: [expect.objectContaining({ fingerprint, group: fingerprint, weight: 1, rpm: null, tpm: null, state: "active", until: null })],
      },
    ]);
  });

  it("keeps reports fresh: the latest report is newer on each look", async () => {
    const before = (await health(0)).data_planes![0]!.reported_at;
    await expect.poll(async () => (await health(1)).data_planes![0]!.reported_at > before, { timeout: 5000 }).toBe(true);
  });

  it("refuses a report with a wrong token", async () => {
    const client = new ControlPlaneClientConstructor(stack.controlPlane.ready.grpc!, grpc.credentials.createInsecure());
    const metadata = new grpc.Metadata();
    metadata.set(AUTH_METADATA_KEY, bearer("not-the-token"));
    try {
      const error = await new Promise<grpc.ServiceError | null>((resolve) =>
        client.reportState({ replicaId: "intruder", controlPlaneLink: "connected" }, metadata, (caught) => resolve(caught)),
      );
      expect(error?.code).toBe(grpc.status.UNAUTHENTICATED);
    } finally {
      client.close();
    }
    expect(replicas(await health(0))).not.toContain("intruder");
  });

  it("calls a data plane silent after 3 intervals without a report, then prunes it after the retention period", async () => {
    await stack.dataPlanes[1]!.stop();
    await expect
      .poll(async () => (await health(0)).data_planes!.find((dataPlane) => dataPlane.replica_id === "test-data-plane-1")?.status, {
        timeout: 15_000,
      })
      .toBe("silent");
    const silent = (await health(1)).data_planes!.find((dataPlane) => dataPlane.replica_id === "test-data-plane-1")!;
    expect(silent.reasons[0]).toMatch(/^no report for \d+ s \(one is sent every 1 s\)$/);
    expect(silent.age_ms).toBeGreaterThan(3 * INTERVAL_MS);
    // The live one stays ok; the silent one is gone once its report is older than DATA_PLANE_REPORT_RETENTION_MS.
    await expect.poll(async () => replicas(await health(0)), { timeout: 20_000, interval: 500 }).toEqual(["test-data-plane-0"]);
    expect((await health(1)).data_planes![0]!.status).toBe("ok");
  });
});
