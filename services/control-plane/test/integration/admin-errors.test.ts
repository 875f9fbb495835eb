// Every admin API error is `{"error":{"type","code","message","param"}}` from the error table, with
// `x-should-retry` from its retryable flag: the services' own failures and fastify's (validation,
// unreadable or oversized bodies, unknown routes, the admin token), on a real control plane (PGlite).
import { type Catalogue__Output, GatewayError } from "@gateway/proto";
import { readFileSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildAdminApp } from "../../src/admin/admin-app";
import type { CatalogueFile } from "../../src/catalogue/catalogue-file";
import type { RunningControlPlane } from "../../src/control-plane";
import type { ControlPlaneServices } from "../../src/control-plane-services";
import { type EmbeddedControlPlane, startEmbeddedControlPlane } from "../harness/embedded-control-plane";
import { ADMIN_TOKEN as OPERATOR } from "../../src/changes/audit-log";

const ADMIN_TOKEN = "admin-errors-token";
const DEFAULT_CATALOGUE = path.resolve(import.meta.dirname, "../../src/catalogue/default-catalogue.json");

/** `problems`: a refused catalogue file's, which only that error carries. */
async function expectError(
  response: Response,
  status: number,
  type: string,
  code: string,
  retry: boolean,
  message?: string,
  problems?: unknown[],
) {
  expect(response.status).toBe(status);
  expect(response.headers.get("content-type")).toMatch(/^application\/json/);
  expect(response.headers.get("x-should-retry")).toBe(String(retry));
  expect(await response.json()).toEqual({
    error: { type, code, message: message ?? expect.any(String), param: null, ...(problems === undefined ? {} : { problems }) },
  });
}

describe("admin API errors", () => {
  let embedded: EmbeddedControlPlane;
  let controlPlane: RunningControlPlane;

  const admin = (method: string, route: string, body?: string, headers: Record<string, string> = {}) =>
    fetch(`${controlPlane.adminUrl}${route}`, {
      method,
      headers: {
        authorization: `Bearer ${ADMIN_TOKEN}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
        ...headers,
      },
      body,
    });

  beforeAll(async () => {
    embedded = await startEmbeddedControlPlane(ADMIN_TOKEN);
    controlPlane = embedded.controlPlane;
    await controlPlane.services.projects.create({ name: "Taken", id: "taken" }, OPERATOR);
  });

  afterAll(async () => {
    await embedded?.stop();
  });

  it("refuses a missing or wrong admin token", async () => {
    const message = "a valid admin token is required";
    await expectError(
      await admin("GET", "/admin/projects", undefined, { authorization: "Bearer wrong" }),
      401,
      "authentication_error",
      "unauthorized",
      false,
      message,
    );
    await expectError(await fetch(`${controlPlane.adminUrl}/admin/projects`), 401, "authentication_error", "unauthorized", false, message);
  });

  it("answers an unknown route and an unknown project with not_found", async () => {
    await expectError(await admin("GET", "/admin/nothing-here"), 404, "invalid_request_error", "not_found", false, "no such route");
    await expectError(
      await admin("GET", "/admin/projects/nosuch"),
      404,
      "invalid_request_error",
      "not_found",
      false,
      "project nosuch not found",
    );
  });

  it("answers a body that fails the schema, is not JSON or is not JSON at all with invalid_request", async () => {
    await expectError(await admin("POST", "/admin/projects", JSON.stringify({})), 400, "invalid_request_error", "invalid_request", false);
    await expectError(await admin("POST", "/admin/projects", "{"), 400, "invalid_request_error", "invalid_request", false);
    await expectError(
      await admin("POST", "/admin/projects", "name=x", { "content-type": "text/plain" }),
      400,
      "invalid_request_error",
      "invalid_request",
      false,
    );
    await expectError(
      await admin("POST", "/admin/projects/taken/topups", JSON.stringify({ amount_usd: "ten", idempotency_key: "k" })),
      400,
      "invalid_request_error",
      "invalid_request",
      false,
      'amount_usd must be a USD amount such as "10.00" (at most 9 decimals)',
    );
  });

  it("answers a top-up that reuses an idempotency key with another amount with conflict, crediting nothing", async () => {
    const topup = (amount: string) =>
      admin("POST", "/admin/projects/taken/topups", JSON.stringify({ amount_usd: amount, idempotency_key: "invoice-7" }));
    expect((await topup("5.00")).status).toBe(201);
    const replay = await topup("5.00");
    expect(replay.status).toBeLessThan(300);
    expect(((await replay.json()) as { replayed: boolean }).replayed).toBe(true);
    await expectError(
      await topup("50.00"),
      409,
      "invalid_request_error",
      "conflict",
      false,
      "idempotency key invoice-7 was used for a top-up of $5.00 to project taken; this one is $50.00",
    );
    const balance = (await (await admin("GET", "/admin/projects/taken/balance")).json()) as { balance: { usd: string } };
    expect(balance.balance.usd).toBe("5.00");
  });

  it("answers a path with invalid percent-encoding with invalid_request in the table's shape, not fastify's", async () => {
    await expectError(
      await admin("GET", "/admin/projects/%E0%A4%A/balance"),
      400,
      "invalid_request_error",
      "invalid_request",
      false,
      "The request path is not a valid URL: a percent-encoded sequence in it does not decode.",
    );
  });

  it("refuses NUL characters and unpaired surrogates in names, idempotency keys and path ids with 400, storing nothing (was a 500)", async () => {
    const refused = async (response: Response, where: string) =>
      expectError(
        response,
        400,
        "invalid_request_error",
        "invalid_request",
        false,
        `${where} holds a NUL character (U+0000) or an unpaired surrogate, which cannot be stored`,
      );
    const before = await (await admin("GET", "/admin/projects")).json();
    await refused(await admin("POST", "/admin/projects", JSON.stringify({ name: "a\u0000b" })), "body.name");
    await refused(await admin("POST", "/admin/projects", JSON.stringify({ id: "p\u0000q", name: "n" })), "body.id");
    await refused(await admin("POST", "/admin/projects/taken/keys", JSON.stringify({ name: "key\u0000" })), "body.name");
    await refused(
      await admin("POST", "/admin/projects/taken/topups", JSON.stringify({ amount_usd: "1.00", idempotency_key: "k\u0000" })),
      "body.idempotency_key",
    );
    // JSON.stringify escapes a lone surrogate as \ud800, which JSON.parse turns back into one.
    await refused(
      await admin("POST", "/admin/projects/taken/topups", JSON.stringify({ amount_usd: "1.00", idempotency_key: "\ud800" })),
      "body.idempotency_key",
    );
    await refused(await admin("GET", "/admin/projects/p%00q/balance"), "params.projectId");
    await refused(await admin("POST", "/admin/keys/%00/revoke"), "params.keyId");
    expect(await (await admin("GET", "/admin/projects")).json()).toEqual(before);
    const balance = (await (await admin("GET", "/admin/projects/taken/balance")).json()) as { balance: { usd: string } };
    expect(balance.balance.usd).toBe("5.00");
  });

  it("refuses project and key names, idempotency keys and catalogue texts over 200 characters with 400, storing nothing", async () => {
    const long = "n".repeat(201);
    const tooLong = async (response: Response, where: string) => {
      expect(response.status, where).toBe(400);
      expect(await response.json()).toMatchObject({
        error: { code: "invalid_request", message: `${where} must NOT have more than 200 characters` },
      });
    };
    const before = await (await admin("GET", "/admin/projects")).json();
    await tooLong(await admin("POST", "/admin/projects", JSON.stringify({ name: long })), "body/name");
    await tooLong(await admin("POST", "/admin/projects/taken/keys", JSON.stringify({ name: long })), "body/name");
    await tooLong(
      await admin("POST", "/admin/projects/taken/topups", JSON.stringify({ amount_usd: "1.00", idempotency_key: long })),
      "body/idempotency_key",
    );
    const keys = async () => (await (await admin("GET", "/admin/projects/taken/keys")).json()) as { data: { id: string; name: string }[] };
    const issued = (await (await admin("POST", "/admin/projects/taken/keys", JSON.stringify({ name: "n".repeat(200) }))).json()) as {
      id: string;
      name: string;
    };
    expect(issued.name).toHaveLength(200);
    await tooLong(await admin("PATCH", `/admin/keys/${issued.id}`, JSON.stringify({ name: long })), "body/name");
    expect((await keys()).data.find((key) => key.id === issued.id)?.name).toHaveLength(200);
    expect(await (await admin("GET", "/admin/projects")).json()).toEqual(before);

    const file = JSON.parse(readFileSync(DEFAULT_CATALOGUE, "utf8")) as CatalogueFile;
    file.models[0]!.paths[0]!.upstream_model = long;
    const refused = await admin("PUT", "/admin/catalogue?dry_run=true", JSON.stringify(file));
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({
      error: {
        code: "invalid_request",
        problems: [
          {
            pointer: "/models/0/paths/0/upstream_model",
            model: file.models[0]!.id,
            message: `${file.models[0]!.id} paths[0].upstream_model must be at most 200 characters`,
          },
        ],
      },
    });
  });

  it("refuses a per-minute limit beyond the column's integer with 400, not a 500 from the database", async () => {
    for (const rpm of [1e308, 2 ** 31]) {
      await expectError(
        await admin("PATCH", "/admin/projects/taken/limits", JSON.stringify({ rpm_limit: rpm })),
        400,
        "invalid_request_error",
        "invalid_request",
        false,
        "body/rpm_limit must be <= 2147483647",
      );
    }
    expect((await admin("PATCH", "/admin/projects/taken/limits", JSON.stringify({ rpm_limit: 2 ** 31 - 1 }))).status).toBe(200);
    expect((await admin("PATCH", "/admin/projects/taken/limits", JSON.stringify({ rpm_limit: null }))).status).toBe(200);
  });

  it("refuses a top-up or a daily cap over a billion USD with 400, not a 500 from the database, crediting nothing", async () => {
    await expectError(
      await admin("PATCH", "/admin/projects/taken/limits", JSON.stringify({ daily_cap_usd: "9007199254740992" })),
      400,
      "invalid_request_error",
      "invalid_request",
      false,
      "daily_cap_usd must be at most 1000000000 USD",
    );
    await expectError(
      await admin("POST", "/admin/projects/taken/topups", JSON.stringify({ amount_usd: "10000000000", idempotency_key: "huge" })),
      400,
      "invalid_request_error",
      "invalid_request",
      false,
      "amount_usd must be at most 1000000000 USD",
    );
    const balance = (await (await admin("GET", "/admin/projects/taken/balance")).json()) as { balance: { usd: string } };
    expect(balance.balance.usd).toBe("5.00");
  });

  it("refuses a top-up that would take the balance past the bigint column with 409 conflict, crediting nothing (was a 500)", async () => {
    expect((await admin("POST", "/admin/projects", JSON.stringify({ id: "rich", name: "Rich" }))).status).toBe(201);
    const topUp = (key: string) =>
      admin("POST", "/admin/projects/rich/topups", JSON.stringify({ amount_usd: "1000000000", idempotency_key: key }));
    for (let index = 0; index < 9; index++) expect((await topUp(`billion-${index}`)).status).toBe(201);
    await expectError(
      await topUp("billion-9"),
      409,
      "invalid_request_error",
      "conflict",
      false,
      "a top-up of $1000000000.00 would take project rich's balance past what the ledger holds",
    );
    const balance = (await (await admin("GET", "/admin/projects/rich/balance")).json()) as { balance: { usd: string } };
    expect(balance.balance.usd).toBe("9000000000.00");
  });

  it("refuses bad key limits with 400, and rotations or changes of a key that cannot have them with 404 or 409", async () => {
    const issue = (body: unknown) => admin("POST", "/admin/projects/taken/keys", JSON.stringify(body));
    await expectError(await issue({ rpm_limit: 0 }), 400, "invalid_request_error", "invalid_request", false);
    await expectError(
      await issue({ budget_usd: "lots" }),
      400,
      "invalid_request_error",
      "invalid_request",
      false,
      expect.stringContaining("budget_usd"),
    );
    await expectError(await issue({ daily_cap_usd: "2000000000" }), 400, "invalid_request_error", "invalid_request", false);
    await expectError(await issue({ expires_at: "soon" }), 400, "invalid_request_error", "invalid_request", false);
    await expectError(
      await issue({ expires_at: "2001-01-01T00:00:00Z" }),
      400,
      "invalid_request_error",
      "invalid_request",
      false,
      "expires_at must be in the future",
    );
    await expectError(await admin("POST", "/admin/keys/key_nosuch/rotate", "{}"), 404, "invalid_request_error", "not_found", false);
    await expectError(await admin("PATCH", "/admin/keys/key_nosuch", "{}"), 404, "invalid_request_error", "not_found", false);

    const issued = (await (await issue({ name: "r" })).json()) as { id: string };
    expect((await admin("POST", `/admin/keys/${issued.id}/rotate`, JSON.stringify({ grace_seconds: 60 }))).status).toBe(201);
    await expectError(await admin("POST", `/admin/keys/${issued.id}/rotate`, "{}"), 409, "invalid_request_error", "conflict", false);
    await expectError(
      await admin("PATCH", `/admin/keys/${issued.id}`, JSON.stringify({ rpm_limit: 5 })),
      409,
      "invalid_request_error",
      "conflict",
      false,
    );
    await expectError(
      await admin("POST", `/admin/keys/${issued.id}/rotate`, JSON.stringify({ grace_seconds: -1 })),
      400,
      "invalid_request_error",
      "invalid_request",
      false,
    );
  });

  it("answers a body over the limit with body_too_large", async () => {
    const large = JSON.stringify({ name: "x".repeat(2 * 1024 * 1024) });
    await expectError(
      await admin("POST", "/admin/projects", large),
      413,
      "invalid_request_error",
      "body_too_large",
      false,
      "request body too large",
    );
  });

  it("answers a project id already taken with conflict", async () => {
    await expectError(
      await admin("POST", "/admin/projects", JSON.stringify({ name: "Again", id: "taken" })),
      409,
      "invalid_request_error",
      "conflict",
      false,
      "project taken already exists",
    );
  });

  it("refuses a catalogue with a price component the gateway does not bill (400) and keeps the current catalogue", async () => {
    const before = (await (await admin("GET", "/admin/catalogue")).json()) as Catalogue__Output;
    const file = JSON.parse(readFileSync(DEFAULT_CATALOGUE, "utf8")) as CatalogueFile;
    // A plausible but unknown component (Gemini bills cache storage per hour): it must not load and be ignored.
    Object.assign(file.models[0]!.paths[0]!.price!, { cache_storage_per_m: "1.00" });
    await expectError(
      await admin("PUT", "/admin/catalogue?source=unknown-component", JSON.stringify(file)),
      400,
      "invalid_request_error",
      "invalid_request",
      false,
      "body/models/0/paths/0/price must be equal to one of the allowed values, body/models/0/paths/0/price property name must be valid",
      [
        {
          pointer: "/models/0/paths/0/price/cache_storage_per_m",
          model: file.models[0]!.id,
          message: `${file.models[0]!.id} paths[0].price: cache_storage_per_m is not a price component the gateway bills`,
        },
      ],
    );
    // Unknown inside a long-context tier or a service tier too.
    const nested = JSON.parse(readFileSync(DEFAULT_CATALOGUE, "utf8")) as CatalogueFile;
    Object.assign(nested.models[0]!.paths[0]!.price!, { service_tiers: { priority: { input_per_m: "1.00", storage_per_m: "1.00" } } });
    await expectError(
      await admin("PUT", "/admin/catalogue", JSON.stringify(nested)),
      400,
      "invalid_request_error",
      "invalid_request",
      false,
      undefined,
      [
        {
          pointer: "/models/0/paths/0/price/service_tiers/priority/storage_per_m",
          model: nested.models[0]!.id,
          message: `${nested.models[0]!.id} paths[0].price.service_tiers.priority: storage_per_m is not a price component the gateway bills`,
        },
      ],
    );
    const after = (await (await admin("GET", "/admin/catalogue")).json()) as Catalogue__Output;
    expect(after.revision).toBe(before.revision);
    expect(after.models).toEqual(before.models);
  });

  it("answers a bug with internal_error and an unreachable database with control_plane_unavailable (retryable), logging both", async () => {
    const failures: unknown[] = [];
    let next: unknown;
    const services = {
      projects: {
        list: async () => {
          throw next;
        },
      },
    } as unknown as ControlPlaneServices;
    const app = buildAdminApp({ adminToken: ADMIN_TOKEN, services, isReady: () => true, logLevel: "error" });
    app.log.error = ((failure: unknown) => void failures.push(failure)) as typeof app.log.error;
    const list = async () => {
      const response = await app.inject({ method: "GET", url: "/admin/projects", headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
      return new Response(response.body, { status: response.statusCode, headers: response.headers as Record<string, string> });
    };
    try {
      const bug = new TypeError("Cannot read properties of undefined (reading 'id')");
      next = bug;
      await expectError(await list(), 500, "server_error", "internal_error", false, "the control plane could not complete the request");
      expect(failures).toEqual([bug]);

      const outage = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" });
      next = outage;
      await expectError(
        await list(),
        503,
        "service_unavailable",
        "control_plane_unavailable",
        true,
        "the control plane cannot reach its database",
      );
      expect(failures).toEqual([bug, outage]);

      next = new GatewayError("control_plane_unavailable", "the control plane cannot reach its database");
      await expectError(
        await list(),
        503,
        "service_unavailable",
        "control_plane_unavailable",
        true,
        "the control plane cannot reach its database",
      );
      expect(failures).toHaveLength(2); // a table error is an answer, not a failure to log
    } finally {
      await app.close();
    }
  });

  it("refuses a request arriving on a kept-alive connection while the app closes with 503 shutting_down in the table's shape (was fastify's own body)", async () => {
    let release: () => void = () => {};
    let listed: () => void = () => {};
    const listing = new Promise<void>((resolve) => (listed = resolve));
    const services = {
      projects: {
        list: async () => {
          listed();
          await new Promise<void>((resolve) => (release = resolve));
          return [];
        },
      },
    } as unknown as ControlPlaneServices;
    const app = buildAdminApp({ adminToken: ADMIN_TOKEN, services, isReady: () => true, logLevel: "silent" });
    const url = new URL(await app.listen({ host: "127.0.0.1", port: 0 }));
    const request = (path: string) => `GET ${path} HTTP/1.1\r\nhost: localhost\r\nauthorization: Bearer ${ADMIN_TOKEN}\r\n\r\n`;
    const socket = net.connect(Number(url.port), url.hostname);
    const received: Buffer[] = [];
    socket.on("data", (chunk: Buffer) => received.push(chunk));
    const ended = new Promise((resolve) => socket.on("close", resolve));
    socket.write(request("/admin/projects"));
    await listing; // the first request is in flight: its connection is not idle, so closing keeps it
    const closed = app.close();
    socket.write(request("/admin/catalogue"));
    await new Promise((resolve) => setTimeout(resolve, 100)); // the second is read while the app closes
    release();
    await ended;
    await closed;
    const [first, second] = Buffer.concat(received)
      .toString("utf8")
      .split(/(?=HTTP\/1\.1 )/);
    expect(first).toMatch(/^HTTP\/1\.1 200 /);
    expect(second).toMatch(/^HTTP\/1\.1 503 /);
    expect(second).toMatch(/\r\nx-should-retry: true\r\n/);
    expect(JSON.parse(second!.slice(second!.indexOf("\r\n\r\n") + 4))).toEqual({
      error: {
        type: "service_unavailable",
        code: "shutting_down",
        message: "This replica is shutting down. Send the request again: another replica will take it.",
        param: null,
      },
    });
  });
});
