// The admin API's ledger and holds listings, filtered (for the console's Ledger page and for operators):
// entries of a kind, of a request, of a key, of UTC days, and pages back by entry id; one request's hold
// whatever its status. On a real control plane (PGlite), the entries made through the ledger itself.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningControlPlane } from "../../src/control-plane";
import { type EmbeddedControlPlane, startEmbeddedControlPlane } from "../harness/embedded-control-plane";
import { ADMIN_TOKEN as OPERATOR } from "../../src/changes/audit-log";

const ADMIN_TOKEN = "ledger-filters-token";

interface Entry {
  id: string;
  kind: string;
  request_id: string | null;
  key_id: string | null;
  day: string;
}

describe("filtered ledger and holds listings", () => {
  let embedded: EmbeddedControlPlane;
  let controlPlane: RunningControlPlane;
  let keyA: string;
  let keyB: string;

  const get = async <T>(route: string): Promise<{ status: number; json: T }> => {
    const response = await fetch(`${controlPlane.adminUrl}${route}`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    return { status: response.status, json: (await response.json()) as T };
  };
  const entries = async (query: string) => (await get<{ data: Entry[] }>(`/admin/projects/filters/ledger?${query}`)).json.data;

  beforeAll(async () => {
    embedded = await startEmbeddedControlPlane(ADMIN_TOKEN);
    controlPlane = embedded.controlPlane;
    const { projects, keys, ledger } = controlPlane.services;
    await projects.create({ name: "Filters", id: "filters" }, OPERATOR);
    await ledger.topUp("filters", 10_000_000_000n, "first", OPERATOR);
    keyA = (await keys.issue("filters", { name: "a" }, OPERATOR)).record.id;
    keyB = (await keys.issue("filters", { name: "b" }, OPERATOR)).record.id;
    // Five requests: r0, r2, r4 by key A, r1, r3 by key B; r4 released (a hold, no debit).
    for (let index = 0; index < 5; index++) {
      const keyId = index % 2 === 0 ? keyA : keyB;
      const requestId = `r${index}`;
      await ledger.reserve({ requestId, projectId: "filters", keyId, amountNano: 1000n, model: "m", accessPath: "openai" });
      if (index === 4) await ledger.release(requestId, "filters");
      else
        await ledger.settle({
          requestId,
          projectId: "filters",
          amountNano: 100n * BigInt(index + 1),
          model: "m",
          accessPath: "openai",
          inputTokens: 1,
          outputTokens: 1,
        });
    }
    await ledger.topUp("filters", 1_000_000_000n, "second", OPERATOR);
  });

  afterAll(async () => {
    await embedded?.stop();
  });

  it("filters by kind, request, key and day, newest first", async () => {
    expect((await entries("")).map((entry) => entry.kind)).toEqual(["topup", "debit", "debit", "debit", "debit", "topup"]);
    expect((await entries("kind=debit")).map((entry) => entry.request_id)).toEqual(["r3", "r2", "r1", "r0"]);
    expect((await entries("kind=topup")).length).toBe(2);
    expect((await entries("request_id=r2")).map((entry) => [entry.kind, entry.key_id])).toEqual([["debit", keyA]]);
    expect((await entries(`key_id=${keyB}`)).map((entry) => entry.request_id)).toEqual(["r3", "r1"]);
    const today = (await entries(""))[0]!.day;
    expect((await entries(`from=${today}&to=${today}`)).length).toBe(6);
    expect(await entries("to=2000-01-01")).toEqual([]);
    expect((await get(`/admin/projects/filters/ledger?kind=refund`)).status).toBe(400);
  });

  it("pages back with before, an entry id", async () => {
    const all = await entries("");
    const first = await entries("limit=4");
    expect(first.map((entry) => entry.id)).toEqual(all.slice(0, 4).map((entry) => entry.id));
    const rest = await entries(`limit=4&before=${first.at(-1)!.id}`);
    expect(rest.map((entry) => entry.id)).toEqual(all.slice(4).map((entry) => entry.id));
    expect((await get(`/admin/projects/filters/ledger?before=x1`)).status).toBe(400);
    expect((await get(`/admin/projects/filters/ledger?before=9999999999999999999`)).status).toBe(400); // past a bigint: refused, not a 500
  });

  it("lists one request's hold whatever its status", async () => {
    const released = await get<{ data: { request_id: string; status: string }[] }>("/admin/projects/filters/holds?request_id=r4");
    expect(released.json.data).toEqual([expect.objectContaining({ request_id: "r4", status: "released" })]);
    const settled = await get<{ data: { status: string }[] }>("/admin/projects/filters/holds?request_id=r1&status=active");
    expect(settled.json.data.map((hold) => hold.status)).toEqual(["settled"]);
    expect((await get<{ data: unknown[] }>("/admin/projects/filters/holds?request_id=nosuch")).json.data).toEqual([]);
  });

  it("pages holds back with before, a request id, newest first; narrows them to UTC days", async () => {
    type Hold = { request_id: string; day: string };
    const holds = async (query: string) => (await get<{ data: Hold[] }>(`/admin/projects/filters/holds?status=settled&${query}`)).json.data;
    const all = await holds("");
    expect(all.map((hold) => hold.request_id).sort()).toEqual(["r0", "r1", "r2", "r3"]);
    const first = await holds("limit=3");
    expect(first).toEqual(all.slice(0, 3));
    expect(await holds(`limit=3&before=${first.at(-1)!.request_id}`)).toEqual(all.slice(3));
    expect(await holds(`before=${all.at(-1)!.request_id}`)).toEqual([]);
    const unknown = await get<{ error: { message: string } }>("/admin/projects/filters/holds?before=nosuch");
    expect(unknown.status).toBe(400);
    expect(unknown.json.error.message).toBe("before: no hold of this project has request id nosuch");
    expect(await holds(`from=${all[0]!.day}&to=${all[0]!.day}`)).toEqual(all);
    expect(await holds("to=2000-01-01")).toEqual([]);
    // Holds placed in the same millisecond page in request-id order (newest first): none skipped or shown twice.
    await controlPlane.database.query("UPDATE holds SET created_at = '2026-11-26T00:00:00.000Z' WHERE project_id = 'filters'", []);
    const tied = await holds("");
    expect(tied.map((hold) => hold.request_id)).toEqual(["r3", "r2", "r1", "r0"]);
    const pages = [await holds("limit=2")];
    pages.push(await holds(`limit=2&before=${pages[0]!.at(-1)!.request_id}`));
    pages.push(await holds(`limit=2&before=${pages[1]!.at(-1)!.request_id}`));
    expect(pages.map((page) => page.map((hold) => hold.request_id))).toEqual([["r3", "r2"], ["r1", "r0"], []]);
  });
});
