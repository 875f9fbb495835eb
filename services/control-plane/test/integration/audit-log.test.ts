// The audit log (GET /admin/audit-log): the change events of admin actions, newest first, each with its
// subject in the API's names; filtered by kind, paged back by event id. On a real control plane (PGlite),
// the actions made through the admin API itself.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningControlPlane } from "../../src/control-plane";
import { type EmbeddedControlPlane, startEmbeddedControlPlane } from "../harness/embedded-control-plane";

const ADMIN_TOKEN = "audit-log-token";

interface AuditEvent {
  id: string;
  at: string;
  kind: string;
  actor: string | null;
  subject: { project_id: string | null; key_id: string | null; catalogue_revision: string | null };
}

describe("audit log", () => {
  let embedded: EmbeddedControlPlane;
  let controlPlane: RunningControlPlane;
  let keyId: string;

  const call = async <T>(method: string, route: string, body?: unknown): Promise<{ status: number; json: T }> => {
    const response = await fetch(`${controlPlane.adminUrl}${route}`, {
      method,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, json: (await response.json()) as T };
  };
  const events = async (query = "") => {
    const answer = await call<{ data: AuditEvent[] }>("GET", `/admin/audit-log${query}`);
    expect(answer.status).toBe(200);
    return answer.json.data;
  };

  beforeAll(async () => {
    embedded = await startEmbeddedControlPlane(ADMIN_TOKEN);
    controlPlane = embedded.controlPlane;
    expect((await call("POST", "/admin/projects", { name: "Audited", id: "audited" })).status).toBe(201);
    keyId = (await call<{ id: string }>("POST", "/admin/projects/audited/keys", { name: "k" })).json.id;
    expect((await call("PATCH", "/admin/projects/audited/limits", { rpm_limit: 30 })).status).toBe(200);
    expect((await call("PATCH", `/admin/keys/${keyId}`, { rpm_limit: 10 })).status).toBe(200);
    expect((await call("POST", `/admin/keys/${keyId}/revoke`)).status).toBe(200);
  });

  afterAll(async () => {
    await embedded?.stop();
  });

  it("lists the actions newest first, each with its subject; the default catalogue's load is the first", async () => {
    const all = await events();
    expect(all.map((event) => [event.kind, event.subject])).toEqual([
      ["key_revoked", { project_id: "audited", key_id: keyId, catalogue_revision: null }],
      ["key_changed", { project_id: "audited", key_id: keyId, catalogue_revision: null }],
      ["project_changed", { project_id: "audited", key_id: null, catalogue_revision: null }],
      ["catalogue", { project_id: null, key_id: null, catalogue_revision: expect.stringMatching(/^\d+$/) }],
    ]);
    expect(all.every((event) => event.actor === null)).toBe(true);
    expect(all.map((event) => event.at)).toEqual([...all.map((event) => event.at)].sort().reverse());
    expect(all.map((event) => BigInt(event.id))).toEqual([...all.map((event) => BigInt(event.id))].sort((a, b) => (a > b ? -1 : 1)));
  });

  it("filters by kind and pages back by id", async () => {
    expect((await events("?kind=key_changed")).map((event) => event.kind)).toEqual(["key_changed"]);
    const [newest, second] = await events("?limit=2");
    expect([newest!.kind, second!.kind]).toEqual(["key_revoked", "key_changed"]);
    const older = await events(`?before=${second!.id}&limit=2`);
    expect(older.map((event) => event.kind)).toEqual(["project_changed", "catalogue"]);
    expect(await events(`?before=${older[1]!.id}`)).toEqual([]);
  });

  it("refuses an unknown kind and a bad cursor in the error shape", async () => {
    for (const query of ["?kind=topup", "?before=abc", "?limit=0"]) {
      const answer = await call<{ error: { code: string } }>("GET", `/admin/audit-log${query}`);
      expect(answer.status, query).toBe(400);
      expect(answer.json.error.code, query).toBe("invalid_request");
    }
  });
});
