// The audit log (GET /admin/audit-log): every admin action (project created, limits, top-up, key issued,
// changed, rotated, revoked, catalogue loaded), newest first, each with who acted and its subject in the
// API's names; filtered by kind, paged back by event id. A replayed top-up records nothing; an expired key's
// revocation is the control plane's own. On a real control plane (PGlite), the actions made through the
// admin API itself.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningControlPlane } from "../../src/control-plane";
import { type EmbeddedControlPlane, startEmbeddedControlPlane } from "../harness/embedded-control-plane";

const ADMIN_TOKEN = "audit-log-token";

interface AuditEvent {
  id: string;
  at: string;
  kind: string;
  actor: string | null;
  subject: {
    project_id: string | null;
    key_id: string | null;
    replaces_key_id: string | null;
    catalogue_revision: string | null;
    amount: { nano: string; usd: string } | null;
  };
}

describe("audit log", () => {
  let embedded: EmbeddedControlPlane;
  let controlPlane: RunningControlPlane;
  let keyId: string;
  let successorId: string;

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
    const topUp = { amount_usd: "2.50", idempotency_key: "audit-1" };
    expect((await call("POST", "/admin/projects/audited/topups", topUp)).status).toBe(201);
    expect((await call("POST", "/admin/projects/audited/topups", topUp)).status).toBe(200); // a replay: no event
    successorId = (await call<{ key: { id: string } }>("POST", `/admin/keys/${keyId}/rotate`, { grace_seconds: 3600 })).json.key.id;
    expect((await call("POST", `/admin/keys/${successorId}/revoke`)).status).toBe(200);
    // A sweep as if two hours had passed: the rotated key's grace is over, and the control plane revokes it.
    expect(await controlPlane.services.keys.revokeExpired(new Date(Date.now() + 7_200_000))).toBe(1);
  });

  afterAll(async () => {
    await embedded?.stop();
  });

  it("lists the actions newest first, each with who acted and its subject; the default catalogue's load is the first", async () => {
    const all = await events();
    const subject = (fields: Partial<AuditEvent["subject"]>) => ({
      project_id: "audited",
      key_id: null,
      replaces_key_id: null,
      catalogue_revision: null,
      amount: null,
      ...fields,
    });
    expect(all.map((event) => [event.kind, event.actor, event.subject])).toEqual([
      ["key_revoked", "control plane", subject({ key_id: keyId })],
      ["key_revoked", "admin token", subject({ key_id: successorId })],
      ["key_issued", "admin token", subject({ key_id: successorId, replaces_key_id: keyId })],
      ["key_changed", "admin token", subject({ key_id: keyId })],
      ["topup", "admin token", subject({ amount: { nano: "2500000000", usd: "2.50" } })],
      ["key_changed", "admin token", subject({ key_id: keyId })],
      ["project_changed", "admin token", subject({})],
      ["key_issued", "admin token", subject({ key_id: keyId })],
      ["project_created", "admin token", subject({})],
      ["catalogue", "control plane", subject({ project_id: null, catalogue_revision: expect.stringMatching(/^\d+$/) })],
    ]);
    expect(all.map((event) => event.at)).toEqual([...all.map((event) => event.at)].sort().reverse());
    expect(all.map((event) => BigInt(event.id))).toEqual([...all.map((event) => BigInt(event.id))].sort((a, b) => (a > b ? -1 : 1)));
  });

  it("filters by kind and pages back by id", async () => {
    expect((await events("?kind=topup")).map((event) => event.subject.amount?.usd)).toEqual(["2.50"]);
    const all = await events();
    const firstPage = await events("?limit=4");
    expect(firstPage).toEqual(all.slice(0, 4));
    const older = await events(`?before=${firstPage.at(-1)!.id}&limit=100`);
    expect(older).toEqual(all.slice(4));
    expect(await events(`?before=${older.at(-1)!.id}`)).toEqual([]);
  });

  it("refuses an unknown kind and a bad cursor in the error shape", async () => {
    for (const query of ["?kind=refund", "?before=abc", "?before=9999999999999999999", "?limit=0"]) {
      const answer = await call<{ error: { code: string } }>("GET", `/admin/audit-log${query}`);
      expect(answer.status, query).toBe(400);
      expect(answer.json.error.code, query).toBe("invalid_request");
    }
  });
});
