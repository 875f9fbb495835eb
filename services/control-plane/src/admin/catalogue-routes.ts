// Admin routes for the catalogue: load a file (or only check it), read the snapshot, browse the models.
import type { FastifyInstance, FastifyRequest } from "fastify";
import { catalogueFileSchema, type CatalogueFile } from "../catalogue/catalogue-file";
import { InvalidCatalogueError, ProblemList } from "../catalogue/catalogue-problems";
import { readInventory, withInventory } from "../catalogue/load-default-catalogue";
import { checkCatalogue, normalizeCatalogue } from "../catalogue/normalize-catalogue";
import { brokenEntries, collectingValidator, schemaMessage, schemaProblems } from "../catalogue/schema-problems";
import type { ControlPlaneServices } from "../control-plane-services";
import { invalidRequest } from "../errors";
import { MAX_TEXT_LENGTH } from "../text-limits";
import { operatorOf } from "./admin-params";
import { errorResponses } from "./admin-schemas";
import { presentCatalogueListing } from "./catalogue-presenters";
import { catalogueModelsSchema } from "./catalogue-schemas";

const loadedSchema = {
  type: "object",
  required: ["revision", "models", "curated", "dry_run"],
  additionalProperties: false,
  properties: {
    revision: { type: ["string", "null"], description: "the new revision; null on a dry run (nothing loaded)" },
    models: { type: "integer", description: "models loaded (or that would be), the inventory's included" },
    curated: { type: "integer", description: "of which from the catalogue file's own models" },
    dry_run: { type: "boolean" },
  },
} as const;

/** The snapshot the data planes receive (proto `Catalogue`, in its JSON form): open, it follows the proto. */
const snapshotSchema = {
  type: "object",
  additionalProperties: true,
  description: "the catalogue snapshot sent to the data planes (proto/gateway/v1/control_plane.proto `Catalogue`)",
} as const;

const MAX_PAGE = 200;

/**
 * A refused file's every problem: the schema's (all of them, against their entries), then the semantic
 * checks of the entries the schema let through; the file-wide checks only once the schema has none.
 */
function refuseInvalidFile(request: FastifyRequest<{ Body: CatalogueFile }>): void {
  const failure = request.validationError as (Error & { validation?: unknown[]; validationContext?: string }) | undefined;
  if (!failure) return;
  if (failure.validationContext !== "body") throw invalidRequest(failure.message);
  const body = request.body as Partial<CatalogueFile> | undefined;
  const errors = (failure.validation ?? []) as Parameters<typeof schemaProblems>[1];
  const problems = new ProblemList(schemaProblems(body, errors));
  const readable = Array.isArray(body?.models) && (body.inventory === undefined || Array.isArray(body.inventory)) && body.defaults;
  if (readable) checkCatalogue(body as CatalogueFile, problems, brokenEntries(problems.problems));
  // The schema's words (`body/...`, as fastify puts them) are the one line; the problems place each.
  throw new InvalidCatalogueError(problems.problems, schemaMessage(errors));
}

export function registerCatalogueRoutes(app: FastifyInstance, services: ControlPlaneServices): void {
  app.put<{ Body: CatalogueFile; Querystring: { source?: string; dry_run?: boolean } }>(
    "/admin/catalogue",
    {
      schema: {
        summary: "Replace the catalogue (models, access paths, prices); a file without an inventory gets the generated one",
        body: catalogueFileSchema,
        querystring: {
          type: "object",
          properties: {
            source: { type: "string", maxLength: MAX_TEXT_LENGTH, description: "recorded with the revision; default `admin api`" },
            dry_run: { type: "boolean", description: "true: check the file and answer as a load would, loading nothing" },
          },
        },
        response: { 200: loadedSchema, ...errorResponses },
      },
      bodyLimit: 64 * 1024 * 1024,
      // Every schema error, not the first: the operator fixes the whole file at once.
      validatorCompiler: collectingValidator,
      attachValidation: true,
    },
    async (request) => {
      refuseInvalidFile(request);
      // A file without an inventory of its own gets the generated one, as at start-up.
      const file = withInventory(request.body, readInventory());
      if (request.query.dry_run) {
        const models = normalizeCatalogue(file);
        return { revision: null, models: models.length, curated: models.filter((model) => model.curated).length, dry_run: true };
      }
      const result = await services.catalogue.load(file, request.query.source ?? "admin api", operatorOf(request));
      return { revision: result.revision, models: result.models, curated: result.curated, dry_run: false };
    },
  );

  app.get(
    "/admin/catalogue",
    { schema: { summary: "The catalogue snapshot the data planes receive", response: { 200: snapshotSchema, ...errorResponses } } },
    async () => services.catalogue.snapshot(),
  );

  app.get<{ Querystring: { curated?: boolean; q?: string; limit: number; offset: number } }>(
    "/admin/catalogue/models",
    {
      schema: {
        summary: "The loaded models with their tiers, purposes, access paths and prices, searched and a page at a time",
        querystring: {
          type: "object",
          additionalProperties: false,
          properties: {
            curated: { type: "boolean", description: "true: the curated models; false: the inventory; absent: both" },
            q: { type: "string", maxLength: 200, description: "words each found in the id, owner, a provider or an upstream model" },
            limit: { type: "integer", minimum: 1, maximum: MAX_PAGE, default: 50 },
            offset: { type: "integer", minimum: 0, default: 0 },
          },
        },
        response: { 200: catalogueModelsSchema, ...errorResponses },
      },
    },
    async (request) => {
      const { curated, q, limit, offset } = request.query;
      return presentCatalogueListing(await services.catalogue.list({ curated, q, limit, offset }), { limit, offset });
    },
  );
}
