// GET /v1/models: intent aliases, then the curated catalogue; `?all=1`
// appends the inventory (docs/catalogue.md).
import type { FastifyInstance } from "fastify";
import type { CatalogueSnapshot, ModelEntry } from "../catalogue/catalogue-snapshot";
import { controlPlaneUnavailable } from "../errors";
import { TIERS } from "../routing/resolve-model";

const ALIASES = ["auto", ...TIERS.map((tier) => `auto:${tier}`)];
const perMillionUsd = (nano: bigint) => Number(nano) / 1e9;

function pricing(model: ModelEntry): Record<string, number> | undefined {
  const price = model.paths.find((path) => path.price.verified && path.price.inputNanoPerM !== null)?.price;
  if (!price) return undefined;
  const out: Record<string, number> = { input: perMillionUsd(price.inputNanoPerM!), output: perMillionUsd(price.outputNanoPerM ?? 0n) };
  if (price.imageNano !== null) out.image = perMillionUsd(price.imageNano);
  if (price.requestNano !== null) out.request = perMillionUsd(price.requestNano);
  return out;
}

function modelEntry(model: ModelEntry) {
  const price = pricing(model);
  return {
    id: model.id,
    object: "model",
    created: model.created,
    owned_by: model.ownedBy,
    context_length: model.contextLength,
    input_modalities: model.inputModalities,
    output_modalities: model.outputModalities,
    service: { tiers: model.tiers, purposes: model.purposes, ...(price ? { pricing: price } : {}) },
  };
}

export function registerModelsRoute(app: FastifyInstance, catalogueNow: () => CatalogueSnapshot | undefined): void {
  app.get<{ Querystring: { all?: string } }>("/v1/models", async (request) => {
    const catalogue = catalogueNow();
    if (!catalogue) throw controlPlaneUnavailable();
    const includeInventory = request.query.all === "1";
    const models = catalogue.models.filter((model) => model.curated || includeInventory);
    return {
      object: "list",
      data: [
        ...ALIASES.map((id) => ({ id, object: "model", created: 0, owned_by: "gateway", service: { alias: true } })),
        ...models.map(modelEntry),
      ],
    };
  });
}
