// Admin routes for the catalogue.
import type { FastifyInstance } from "fastify";
import { catalogueFileSchema, type CatalogueFile } from "../catalogue/catalogue-file";
import type { ControlPlaneServices } from "../control-plane";

export function registerCatalogueRoutes(app: FastifyInstance, services: ControlPlaneServices): void {
  app.put<{ Body: CatalogueFile; Querystring: { source?: string } }>("/admin/catalogue", { schema: { body: catalogueFileSchema }, bodyLimit: 64 * 1024 * 1024 }, async (request) => {
    const result = await services.catalogue.load(request.body, request.query.source ?? "admin api");
    return { revision: result.revision, models: result.models, curated: result.curated };
  });

  app.get("/admin/catalogue", async () => services.catalogue.snapshot());
}
