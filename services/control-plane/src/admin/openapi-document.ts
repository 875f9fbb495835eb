// The admin API's OpenAPI document without a running control plane: the routes are built (never
// called) over no services, for docs/admin-api.md and its staleness check.
import type { ControlPlaneServices } from "../control-plane-services";
import { buildAdminApp } from "./admin-app";
import type { OpenApiDocument } from "./openapi-operations";

export async function adminOpenApiDocument(): Promise<OpenApiDocument> {
  const app = buildAdminApp({
    adminToken: "unused",
    services: {} as ControlPlaneServices,
    isReady: () => true,
    logLevel: "silent",
  });
  await app.ready();
  try {
    return app.swagger() as unknown as OpenApiDocument;
  } finally {
    await app.close();
  }
}
