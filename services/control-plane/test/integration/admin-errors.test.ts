// Every admin API error is `{"error":{"type","code","message"}}` from the error table, with
// `x-should-retry` from its retryable flag: the services' own failures and fastify's (validation,
// unreadable or oversized bodies, unknown routes, the admin token), on a real control plane (PGlite).
import { GatewayError } from "@gateway/proto";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { Registry } from "prom-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildAdminApp } from "../../src/admin/admin-app";
import { parseControlPlaneConfig } from "../../src/config";
import { startControlPlane, type RunningControlPlane } from "../../src/control-plane";
import type { ControlPlaneServices } from "../../src/control-plane-services";

const ADMIN_TOKEN = "admin-errors-token";

async function expectError(response: Response, status: number, type: string, code: string, retry: boolean, message?: string) {
  expect(response.status).toBe(status);
  expect(response.headers.get("content-type")).toMatch(/^application\/json/);
  expect(response.headers.get("x-should-retry")).toBe(String(retry));
  expect(await response.json()).toEqual({ error: { type, code, message: message ?? expect.any(String) } });
}

describe("admin API errors", () => {
  let dataDir: string;
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
    dataDir = mkdtempSync(path.join(os.tmpdir(), "admin-errors-"));
    controlPlane = await startControlPlane(
      parseControlPlaneConfig({
        GATEWAY_DATA_DIR: dataDir,
        GATEWAY_INTERNAL_TOKEN: "internal",
        GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN,
        CONTROL_PLANE_GRPC_PORT: "0",
        CONTROL_PLANE_ADMIN_PORT: "0",
        LOG_LEVEL: "silent",
      }),
    );
    await controlPlane.services.projects.create({ name: "Taken", id: "taken" });
  });

  afterAll(async () => {
    await controlPlane?.close();
    rmSync(dataDir, { recursive: true, force: true });
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
    const app = buildAdminApp({ adminToken: ADMIN_TOKEN, services, isReady: () => true, logLevel: "error", metrics: new Registry() });
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
});
