// The console's Health and Audit log pages in a real browser against a real stack (a control plane on
// PostgreSQL, two data planes, the mock provider): both data planes and the control plane are shown with
// the figures of GET /admin/health with their provider keys (by fingerprint), an access path's circuit
// opened by a failing upstream appears on the page, and a key's revocation and a project's new limits
// appear in the audit log as GET /admin/audit-log has them. Screenshots: health-*.png and audit-*.png (page-screenshots.ts).
import type { Browser, Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type GatewayStack, marker, startStack, type TestProject } from "../../data-plane/test/harness/gateway-stack";
import type { components } from "../src/generated/admin-api";
import { consoleBuildOfItsOwn, removeConsoleBuilds } from "./console-build";
import { launchChromium } from "./browser";
import { pageScreenshots } from "./page-screenshots";

type Health = components["schemas"]["Health"];
type DataPlaneHealth = components["schemas"]["DataPlaneHealth"];
type AuditEvent = components["schemas"]["AuditEvent"];

const NANO = "openai/gpt-4.1-nano";

describe("operator console: health and audit log", () => {
  let stack: GatewayStack;
  let browser: Browser;
  let page: Page;
  let project: TestProject;

  beforeAll(async () => {
    const controlPlaneEnv = await consoleBuildOfItsOwn();
    [stack, browser] = await Promise.all([
      startStack({
        backend: "postgresql",
        controlPlaneEnv,
        dataPlanes: 2,
        // Three failures open a path's circuit for everyone, and it stays open through the test.
        dataPlaneEnv: {
          DATA_PLANE_REPORT_INTERVAL_MS: "1000", // silent after 3 s: no pause of a loaded machine reads as silence
          CIRCUIT_FAILURE_THRESHOLD: "3",
          CIRCUIT_COOLDOWN_MS: "600000",
          CIRCUIT_MIN_PROJECTS: "1",
          UPSTREAM_RETRY_BACKOFF_MS: "10",
        },
      }),
      launchChromium(),
    ]);
    project = await stack.createProject({ balanceUsd: "1.00" });
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.setDefaultTimeout(10_000);
    await page.goto(`${stack.adminUrl}/console`);
    await page.getByLabel("Admin token").fill(stack.adminToken);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { name: "Projects" }).waitFor();
  });

  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
    removeConsoleBuilds();
  });

  const api = async <T>(route: string): Promise<T> => {
    const answer = await stack.admin<T>("GET", route);
    expect(answer.status, route).toBe(200);
    return answer.json;
  };
  const dataPlaneRow = (replicaId: string) => page.locator(`tr[data-data-plane="${replicaId}"]`);
  const field = (scope: Locator, name: string) => scope.locator(`[data-field="${name}"]`);
  const text = async (locator: Locator) => ((await locator.textContent()) ?? "").trim();

  /** Opens (or refreshes) the Health page; resolves with the answer the page shows (the last it asked for). */
  async function healthPage(action: () => Promise<unknown>): Promise<Health> {
    const answers: Promise<Health>[] = [];
    const listener = (response: { url(): string; json(): Promise<unknown> }) => {
      if (new URL(response.url()).pathname === "/admin/health") answers.push(response.json() as Promise<Health>);
    };
    page.on("response", listener);
    await action();
    await expect.poll(() => answers.length).toBeGreaterThan(0);
    await page.getByRole("heading", { name: "Data planes" }).waitFor();
    await page.waitForLoadState("networkidle");
    page.off("response", listener);
    return answers.at(-1)!;
  }

  /** Every figure of a data plane's row against the answer's. */
  async function expectRow(dataPlane: DataPlaneHealth): Promise<void> {
    const row = dataPlaneRow(dataPlane.replica_id);
    expect(await text(field(row, "status"))).toBe(dataPlane.status);
    expect(await row.locator('[data-field="reasons"] li').allTextContents()).toEqual(dataPlane.reasons);
    expect(await text(field(row, "control_plane_link"))).toBe(dataPlane.control_plane_link);
    expect(await text(field(row, "control_plane_calls"))).toBe(dataPlane.control_plane_calls === "in_time" ? "in time" : "stalled");
    expect(await text(field(row, "rate_limit"))).toBe(dataPlane.rate_limit);
    expect(await text(field(row, "catalogue_revision"))).toBe(dataPlane.catalogue_revision ?? "none yet");
    expect(await row.locator("time").nth(1).getAttribute("datetime")).toBe(dataPlane.reported_at);
    expect(await row.locator("time").first().getAttribute("datetime")).toBe(dataPlane.started_at);
    expect(await field(row, "age_ms").getAttribute("data-ms")).toBe(String(dataPlane.age_ms));
    const circuits = await row.locator("[data-circuit]").evaluateAll((items) =>
      items.map((item) => ({
        path: item.getAttribute("data-circuit"),
        state: item.getAttribute("data-state"),
        projects_open: Number(item.getAttribute("data-projects-open")),
      })),
    );
    expect(circuits).toEqual(dataPlane.circuits.map(({ path, state, projects_open }) => ({ path, state, projects_open })));
  }

  it("shows the control plane and both data planes with the figures of GET /admin/health", async () => {
    // Both data planes have reported since they received their catalogue.
    await expect
      .poll(async () => (await api<Health>("/admin/health")).data_planes?.map((dataPlane) => dataPlane.status), { timeout: 10_000 })
      .toEqual(["ok", "ok"]);
    const shown = await healthPage(() => page.getByRole("link", { name: "Health" }).click());
    expect(shown.data_planes?.map((dataPlane) => dataPlane.replica_id)).toEqual(["test-data-plane-0", "test-data-plane-1"]);
    for (const dataPlane of shown.data_planes!) await expectRow(dataPlane);

    const card = page.locator("[data-control-plane]");
    const self = shown.control_plane;
    expect(await text(field(card, "replica_id"))).toBe(self.replica_id);
    expect(await text(field(card, "version"))).toBe(self.version);
    expect(await field(card, "uptime_seconds").getAttribute("data-seconds")).toBe(String(self.uptime_seconds));
    expect(await text(field(card, "database"))).toBe(`reachable, ${self.database.round_trip_ms} ms round trip`);
    expect(await text(field(card, "catalogue_revision"))).toBe(self.catalogue_revision);
    expect(await card.locator('[data-field="subscribed_data_planes"] li').allTextContents()).toEqual(
      self.subscribed_data_planes.map((subscriber) => expect.stringContaining(subscriber.replica_id)),
    );
    expect(self.subscribed_data_planes.map((subscriber) => subscriber.replica_id)).toEqual(["test-data-plane-0", "test-data-plane-1"]);

    // Each data plane's provider keys (here one key, a pool of one), by fingerprint: never the key.
    const keys = await page.locator("tr[data-key]").evaluateAll((rows) =>
      rows.map((row) => ({
        data_plane: row.getAttribute("data-data-plane"),
        pool: row.getAttribute("data-pool"),
        fingerprint: row.querySelector('[data-field="fingerprint"]')?.textContent,
        group: row.querySelector('[data-field="group"]')?.textContent,
        weight: Number(row.querySelector('[data-field="weight"]')?.textContent),
        state: row.querySelector('[data-field="state"]')?.className.replace(/^status status-/, ""),
      })),
    );
    expect(keys).toEqual(
      shown.data_planes!.flatMap((dataPlane) =>
        dataPlane.key_pools.flatMap((pool) =>
          pool.keys.map((key) => ({
            data_plane: dataPlane.replica_id,
            pool: pool.pool,
            fingerprint: key.fingerprint,
            group: key.group,
            weight: key.weight,
            state: key.state,
          })),
        ),
      ),
    );
    expect(keys.map((key) => [key.pool, key.state])).toEqual([
      ["OPENAI_API_KEY", "active"],
      ["OPENAI_API_KEY", "active"],
    ]);
    expect(await page.content()).not.toContain("upstream-secret-key");

    // What the page got is what the API says (the figures that do not move with time).
    const now = await api<Health>("/admin/health");
    expect(now.control_plane).toMatchObject({
      replica_id: self.replica_id,
      started_at: self.started_at,
      catalogue_revision: self.catalogue_revision,
    });
    expect(
      now.data_planes!.map(({ replica_id, catalogue_revision, rate_limit }) => ({ replica_id, catalogue_revision, rate_limit })),
    ).toEqual(shown.data_planes!.map(({ replica_id, catalogue_revision, rate_limit }) => ({ replica_id, catalogue_revision, rate_limit })));
  });

  it("shows an access path's circuit opened by a failing upstream, on the data plane it opened on", async () => {
    await stack.mockScript({ match: '"model":"gpt-4.1-nano"', times: 3, status: 503 });
    const ask = () => stack.post("/v1/chat/completions", project.key, { model: NANO, messages: [{ role: "user", content: marker() }] });
    expect((await ask()).status).toBe(503); // the attempt and its retry
    expect((await ask()).status).toBe(503); // the third failure opens the circuit
    // The data plane reports the change at once, not at its next interval.
    await expect
      .poll(async () => (await api<Health>("/admin/health")).data_planes?.[0]?.circuits.map((circuit) => circuit.state), { timeout: 5000 })
      .toEqual(["open"]);

    const shown = await healthPage(() => page.getByRole("button", { name: "Refresh" }).click());
    const [first, second] = shown.data_planes!;
    expect(first).toMatchObject({ status: "degraded", reasons: [`circuit open: ${NANO}`], circuits: [{ path: NANO, state: "open" }] });
    expect(second).toMatchObject({ status: "ok", circuits: [] });
    await expect.poll(() => text(field(dataPlaneRow("test-data-plane-0"), "status"))).toBe("degraded");
    for (const dataPlane of shown.data_planes!) await expectRow(dataPlane);
    await expect(dataPlaneRow("test-data-plane-0").locator(`[data-circuit="${NANO}"]`).textContent()).resolves.toContain("open");
    await pageScreenshots(page, "health");
  });

  /** The rows the page shows, as the API's events. */
  async function shownEvents(): Promise<AuditEvent[]> {
    return page.locator("tr[data-event]").evaluateAll((rows) =>
      rows.map((row) => {
        const value = (name: string) => row.querySelector(`[data-field="${name}"]`)?.getAttribute("data-value") ?? null;
        return {
          id: row.getAttribute("data-event") ?? "",
          at: row.querySelector("time")?.getAttribute("datetime") ?? "",
          kind: row.querySelector('[data-field="kind"]')?.textContent ?? "",
          actor: row.querySelector('[data-field="actor"]')?.textContent ?? "",
          subject: {
            project_id: value("project_id"),
            key_id: value("key_id"),
            replaces_key_id: value("replaces_key_id"),
            catalogue_revision: value("catalogue_revision"),
            amount: value("amount") && {
              nano: value("amount"),
              usd: (row.querySelector('[data-field="amount"] .money')?.textContent ?? "").replace(/^\$/, ""),
            },
          },
        } as AuditEvent;
      }),
    );
  }

  it("shows a key's revocation and a project's new limits in the audit log, as GET /admin/audit-log has them", async () => {
    expect((await stack.admin("POST", `/admin/keys/${project.keyId}/revoke`)).status).toBe(200);
    expect((await stack.admin("PATCH", `/admin/projects/${project.projectId}/limits`, { rpm_limit: 90 })).status).toBe(200);

    await page.getByRole("link", { name: "Audit log" }).click();
    await page.getByRole("heading", { name: "Audit log" }).waitFor();
    await page.locator("tr[data-event]").first().waitFor();
    const all = await api<{ data: AuditEvent[] }>("/admin/audit-log?limit=25");
    expect(await shownEvents()).toEqual(all.data);
    const subject = { project_id: project.projectId, key_id: null, replaces_key_id: null, catalogue_revision: null, amount: null };
    expect(all.data.slice(0, 2).map((event) => [event.kind, event.actor, event.subject])).toEqual([
      ["project_changed", "admin token", subject],
      ["key_revoked", "admin token", { ...subject, key_id: project.keyId }],
    ]);
    // The stack's own set-up through the admin API: the project created and topped up, its key issued.
    const topUp = all.data.find((event) => event.kind === "topup" && event.subject.project_id === project.projectId);
    const [credit] = (
      await api<{ data: { amount: { nano: string; usd: string } }[] }>(`/admin/projects/${project.projectId}/ledger?kind=topup`)
    ).data;
    expect(topUp?.subject.amount).toEqual(credit!.amount);
    expect(all.data.filter((event) => event.subject.project_id === project.projectId).map((event) => event.kind)).toEqual(
      expect.arrayContaining(["project_created", "topup", "key_issued"]),
    );
    await pageScreenshots(page, "audit");

    // By kind: the revocation alone.
    const filtered = page.waitForResponse(
      (response) => response.url().includes("/admin/audit-log?") && response.url().includes("kind=key_revoked"),
    );
    await page.getByLabel("Kind").selectOption("key_revoked");
    await filtered;
    await expect.poll(async () => (await shownEvents()).map((event) => event.kind)).toEqual(["key_revoked"]);
    expect(await shownEvents()).toEqual((await api<{ data: AuditEvent[] }>("/admin/audit-log?kind=key_revoked")).data);
    expect(await page.getByRole("button", { name: "Older" }).isDisabled()).toBe(true);

    // A project subject links to its keys.
    await page.locator("tr[data-event]").first().getByRole("link", { name: project.projectId }).click();
    await page.getByRole("heading", { name: "Keys" }).waitFor();
    expect(new URL(page.url()).searchParams.get("project")).toBe(project.projectId);
  });

  it("pages back through the audit log 25 actions at a time, as the API pages by `before`", async () => {
    for (let rpm = 1; rpm <= 26; rpm++)
      expect((await stack.admin("PATCH", `/admin/projects/${project.projectId}/limits`, { rpm_limit: rpm })).status).toBe(200);
    await page.getByRole("link", { name: "Audit log" }).click();
    await page.getByLabel("Kind").selectOption("project_changed");
    const first = (await api<{ data: AuditEvent[] }>("/admin/audit-log?kind=project_changed&limit=25")).data;
    await expect.poll(async () => (await shownEvents()).map((event) => event.id)).toEqual(first.map((event) => event.id));
    expect(await shownEvents()).toEqual(first);

    await page.getByRole("button", { name: "Older" }).click();
    const second = (await api<{ data: AuditEvent[] }>(`/admin/audit-log?kind=project_changed&limit=25&before=${first.at(-1)!.id}`)).data;
    expect(second).toHaveLength(2); // 27 limit changes in all: this test's 26 and the one before it
    await expect.poll(async () => (await shownEvents()).map((event) => event.id)).toEqual(second.map((event) => event.id));
    expect(await page.getByRole("button", { name: "Older" }).isDisabled()).toBe(true);

    await page.getByRole("button", { name: "Newer" }).click();
    await expect.poll(async () => (await shownEvents()).map((event) => event.id)).toEqual(first.map((event) => event.id));
  });
});
