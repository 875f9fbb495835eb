// GET /admin/health on a real control plane (PGlite) with no data plane: its own state, no reports; with
// its database closed it still answers, says the database is unreachable and that the reports are unknown.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type EmbeddedControlPlane, startEmbeddedControlPlane } from "../harness/embedded-control-plane";

const ADMIN_TOKEN = "admin-health-token";

describe("GET /admin/health", () => {
  let embedded: EmbeddedControlPlane;

  beforeAll(async () => {
    embedded = await startEmbeddedControlPlane(ADMIN_TOKEN, { CONTROL_PLANE_REPLICA_ID: "cp-a", GATEWAY_VERSION: "9.9.9" });
  });
  afterAll(async () => {
    await embedded?.stop().catch(() => {}); // its database may be closed already
  });

  const health = async () => {
    const response = await fetch(`${embedded.controlPlane.adminUrl}/admin/health`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    expect(response.status).toBe(200);
    return (await response.json()) as Record<string, any>;
  };

  it("needs the admin token", async () => {
    const response = await fetch(`${embedded.controlPlane.adminUrl}/admin/health`);
    expect(response.status).toBe(401);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe("unauthorized");
  });

  it("answers with this replica's own state and no data planes before any reports", async () => {
    const answer = await health();
    expect(answer).toEqual({
      control_plane: {
        replica_id: "cp-a",
        version: "9.9.9",
        started_at: expect.stringMatching(/Z$/),
        uptime_seconds: expect.any(Number),
        database: { reachable: true, round_trip_ms: expect.any(Number), error: null },
        catalogue_revision: "1",
        subscribed_data_planes: [],
      },
      data_planes: [],
    });
  });

  it("still answers with its database closed: unreachable, and the reports unknown (null)", async () => {
    await embedded.controlPlane.database.close();
    const answer = await health();
    expect(answer.control_plane.database).toEqual({ reachable: false, round_trip_ms: null, error: expect.any(String) });
    expect(answer.control_plane.catalogue_revision).toBeNull();
    expect(answer.data_planes).toBeNull();
  });
});
