// Admin routes for the catalogue.
import type { FastifyInstance } from "fastify";
import { catalogueFileSchema, type CatalogueFile } from "../catalogue/catalogue-file";
import { readInventory, withInventory } from "../catalogue/load-default-catalogue";
import type { ControlPlaneServices } from "../control-plane-services";
import { errorResponses } from "./admin-schemas";

const loadedSchema = {
  type: "object",
  required: ["revision", "models", "curated"],
  additionalProperties: false,
  properties: {
    revision: { type: "string" },
    models: { type: "integer", description: "models loaded, the inventory's included" },
    curated: { type: "integer", description: "of which from the catalogue file's own models" },
  },
} as const;

/** The snapshot the data planes receive (proto `Catalogue`, in its JSON form): open, it follows the proto. */
const snapshotSchema = {
  type: "object",
  additionalProperties: true,
  description: "the catalogue snapshot sent to the data planes (proto/gateway/v1/control_plane.proto `Catalogue`)",
} as const;

export function registerCatalogueRoutes(app: FastifyInstance, services: ControlPlaneServices): void {
  app.put<{ Body: CatalogueFile; Querystring: { source?: string } }>(
    "/admin/catalogue",
    {
      schema: {
        summary: "Replace the catalogue (models, access paths, prices); a file without an inventory gets the generated one",
        body: catalogueFileSchema,
        querystring: {
          type: "object",
          properties: { source: { type: "string", description: "recorded with the revision; default `admin api`" } },
        },
        response: { 200: loadedSchema, ...errorResponses },
      },
      bodyLimit: 64 * 1024 * 1024,
    },
    async (request) => {
      // A file without an inventory of its own gets the generated one, as at start-up.
      const result = await services.catalogue.load(withInventory(request.body, readInventory()), request.query.source ?? "admin api");
      return { revision: result.revision, models: result.models, curated: result.curated };
    },
  );

  app.get(
    "/admin/catalogue",
    { schema: { summary: "The catalogue snapshot the data planes receive", response: { 200: snapshotSchema, ...errorResponses } } },
    async () => services.catalogue.snapshot(),
  );
}
