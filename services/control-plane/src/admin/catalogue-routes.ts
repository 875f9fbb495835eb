// Admin routes for the catalogue.
import type { FastifyInstance } from "fastify";
import { catalogueFileSchema, type CatalogueFile } from "../catalogue/catalogue-file";
import { readInventory, withInventory } from "../catalogue/load-default-catalogue";
import type { ControlPlaneServices } from "../control-plane-services";

export function registerCatalogueRoutes(app: FastifyInstance, services: ControlPlaneServices): void {
  app.put<{ Body: CatalogueFile; Querystring: { source?: string } }>(
    "/admin/catalogue",
    { schema: { body: catalogueFileSchema }, bodyLimit: 64 * 1024 * 1024 },
    async (request) => {
      // A file without an inventory of its own gets the generated one, as at start-up.
      const result = await services.catalogue.load(withInventory(request.body, readInventory()), request.query.source ?? "admin api");
      return { revision: result.revision, models: result.models, curated: result.curated };
    },
  );

  app.get("/admin/catalogue", async () => services.catalogue.snapshot());
}
