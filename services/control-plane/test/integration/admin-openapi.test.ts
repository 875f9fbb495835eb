// The admin API's OpenAPI document (issue 20): generated from the routes' schemas, valid OpenAPI
// (checked by a real validator), holding every route fastify registers, served with its reference
// page without the admin token; on a real control plane (PGlite).
import SwaggerParser from "@apidevtools/swagger-parser";
import { rmSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { scratchPgliteDir } from "../../../../deploy/test/pglite-template";
import { buildAdminApp } from "../../src/admin/admin-app";
import type { OpenApiDocument } from "../../src/admin/openapi-operations";
import { parseControlPlaneConfig } from "../../src/config";
import { startControlPlane, type RunningControlPlane } from "../../src/control-plane";

const ADMIN_TOKEN = "admin-openapi-token";

describe("admin API OpenAPI document", () => {
  let dataDir: string;
  let controlPlane: RunningControlPlane;
  let document: OpenApiDocument;

  beforeAll(async () => {
    dataDir = scratchPgliteDir("admin-openapi-");
    controlPlane = await startControlPlane(
      parseControlPlaneConfig({
        GATEWAY_DATA_DIR: dataDir,
        GATEWAY_ALLOW_WEAK_TOKENS: "true", // short test tokens
        GATEWAY_INTERNAL_TOKEN: "internal",
        GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN,
        CONTROL_PLANE_GRPC_PORT: "0",
        CONTROL_PLANE_ADMIN_PORT: "0",
        LOG_LEVEL: "silent",
      }),
    );
    // No token: the document and the page hold the API's shape, no data.
    const response = await fetch(`${controlPlane.adminUrl}/admin/openapi.json`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^application\/json/);
    document = (await response.json()) as OpenApiDocument;
  });

  afterAll(async () => {
    await controlPlane?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("is a valid OpenAPI 3.1 document", async () => {
    expect((document as unknown as { openapi: string }).openapi).toBe("3.1.0");
    // validate() dereferences the document it is given: a copy keeps `document` as served.
    await expect(SwaggerParser.validate(structuredClone(document) as never)).resolves.toBeTruthy();
  });

  it("holds every route fastify registers, each with its answers and the error shape", async () => {
    const routes: string[] = [];
    const hidden: string[] = [];
    const app = buildAdminApp({
      adminToken: ADMIN_TOKEN,
      services: controlPlane.services,
      isReady: () => true,
      logLevel: "silent",
    });
    // Every route is added inside a plugin, so after this hook, when the app loads.
    app.addHook("onRoute", (route) => {
      // The console's static files (console-routes.ts) are not the API: hidden from the document, and only they.
      if ((route.schema as { hide?: boolean } | undefined)?.hide) {
        hidden.push(route.url);
        return;
      }
      for (const method of [route.method].flat()) {
        // fastify adds a HEAD route for each GET (exposeHeadRoutes): the GET's operation covers it.
        if (method !== "HEAD") routes.push(`${method} ${route.url.replace(/:(\w+)/g, "{$1}")}`);
      }
    });
    await app.ready();
    await app.close();

    const documented = Object.entries(document.paths).flatMap(([url, operations]) =>
      Object.keys(operations).map((method) => `${method.toUpperCase()} ${url}`),
    );
    expect(routes.length).toBeGreaterThanOrEqual(17); // 16 /admin routes (the document and its page among them) and /health; /metrics is on METRICS_PORT
    expect(documented.sort()).toEqual([...new Set(routes)].sort());
    expect([...new Set(hidden)].sort()).toEqual(["/console", "/console/*"]);

    for (const [url, operations] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        expect(operation.summary, `${method} ${url} says what it does`).toBeTruthy();
        const statuses = Object.keys(operation.responses ?? {});
        expect(
          statuses.some((status) => /^2\d\d$/.test(status)),
          `${method} ${url} documents its answer`,
        ).toBe(true);
        if (url !== "/health") {
          expect(operation.responses?.["4XX"]?.content?.["application/json"]?.schema, `${method} ${url}`).toEqual({
            $ref: "#/components/schemas/Error",
          });
        }
        const path = (operation.parameters ?? []).filter((parameter) => parameter.in === "path").map((parameter) => parameter.name);
        expect(path.sort(), `${method} ${url} describes its path parameters`).toEqual(
          [...url.matchAll(/\{(\w+)\}/g)].map((match) => match[1]).sort(),
        );
      }
    }
    expect(document.components?.schemas?.Error).toMatchObject({ required: ["error"] });
  });

  it("asks for the admin token on every /admin route but the document and its page", () => {
    for (const [url, operations] of Object.entries(document.paths)) {
      for (const operation of Object.values(operations)) {
        const open = ["/health", "/admin/openapi.json", "/admin/docs"].includes(url);
        expect(operation.security ?? document.security, url).toEqual(open ? [] : [{ adminToken: [] }]);
      }
    }
  });

  it("serves a self-contained reference page listing every operation", async () => {
    const response = await fetch(`${controlPlane.adminUrl}/admin/docs`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/html/);
    const page = await response.text();
    for (const [url, operations] of Object.entries(document.paths)) {
      for (const method of Object.keys(operations)) expect(page).toContain(`<code>${method.toUpperCase()} ${url}</code>`);
    }
    // Nothing fetched from elsewhere: an operator's network may have no internet.
    expect(page).not.toMatch(/<script|<link|src=|https?:\/\//i);
  });
});
