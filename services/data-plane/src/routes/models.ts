// GET /v1/models: intent aliases, then the curated catalogue; `?all=1`
// appends the inventory (docs/catalogue.md). GET /v1/models/{id}: one entry
// of that list, by id (a slash in it sent as is or as %2F), alias or
// unambiguous bare name.
import type { FastifyInstance } from "fastify";
import {
  bareName,
  type CatalogueSnapshot,
  type ModelEntry,
  RATE_COMPONENT,
  TOKEN_RATES,
  type TokenRates,
} from "../catalogue/catalogue-snapshot";
import { usdNumber } from "../billing/pricing";
import { controlPlaneUnavailable, modelNotFound } from "../errors";
import { resolveConcrete, TIERS } from "../routing/resolve-model";

const ALIASES = ["auto", ...TIERS.map((tier) => `auto:${tier}`)];

/** Token rates as `service.pricing` names them, USD per million tokens. */
function ratesUsd(rates: TokenRates, shown: (component: string) => boolean): Record<string, number> {
  const out: Record<string, number> = {};
  for (const rate of TOKEN_RATES)
    if (rates[rate] !== undefined && shown(RATE_COMPONENT[rate])) out[RATE_COMPONENT[rate]] = usdNumber(rates[rate]!);
  return out;
}

/**
 * The first verified path's price, its verified components only (docs/catalogue.md): `input` and
 * `output` as before, then the other token rates (USD per million tokens), the unit prices (USD each),
 * `long_context` and `service_tiers`.
 */
function pricing(model: ModelEntry): Record<string, unknown> | undefined {
  const price = model.paths.find((path) => path.price.verified && path.price.inputNanoPerM !== null)?.price;
  if (!price) return undefined;
  const verified = new Set(price.verifiedComponents ?? []);
  const out: Record<string, unknown> = {
    input: usdNumber(price.inputNanoPerM!),
    output: usdNumber(price.outputNanoPerM ?? 0n),
    ...ratesUsd(price.rates ?? {}, (component) => verified.has(component)),
  };
  const units = { image: price.imageNano, input_image: price.inputImageNano, request: price.requestNano, web_search: price.webSearchNano };
  for (const [component, nano] of Object.entries(units))
    if (nano !== null && nano !== undefined && verified.has(component)) out[component] = usdNumber(nano);
  if (price.longContext && verified.has("long_context"))
    out.long_context = { above_input_tokens: price.longContext.aboveInputTokens, ...ratesUsd(price.longContext.rates, () => true) };
  if (price.serviceTiers?.size && verified.has("service_tiers"))
    out.service_tiers = Object.fromEntries([...price.serviceTiers].map(([tier, rates]) => [tier, ratesUsd(rates, () => true)]));
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

const aliasEntry = (id: string) => ({ id, object: "model", created: 0, owned_by: "gateway", service: { alias: true } });

/** One entry: an exact id (inventory included), an alias, or a bare name naming one model (several: model_ambiguous). */
function findEntry(catalogue: CatalogueSnapshot, id: string) {
  const model = catalogue.byId.get(id);
  if (model) return modelEntry(model);
  if (ALIASES.includes(id)) return aliasEntry(id);
  const named = id.includes("/") ? undefined : catalogue.byBareName.get(bareName(id));
  if (!named || named.length === 0) throw modelNotFound(id);
  // Several: the same model_ambiguous error, listing them, as a call with that name gets.
  return modelEntry(named.length === 1 ? named[0]! : resolveConcrete(id, catalogue));
}

export function registerModelsRoute(app: FastifyInstance, catalogueNow: () => CatalogueSnapshot | undefined): void {
  app.get<{ Querystring: { all?: string } }>("/v1/models", async (request) => {
    const catalogue = catalogueNow();
    if (!catalogue) throw controlPlaneUnavailable();
    const includeInventory = request.query.all === "1";
    const models = catalogue.models.filter((model) => model.curated || includeInventory);
    return {
      object: "list",
      data: [...ALIASES.map(aliasEntry), ...models.map(modelEntry)],
    };
  });
  // A wildcard, not a parameter: an id's slash may arrive unencoded. find-my-way has decoded %2F by here.
  app.get<{ Params: { "*": string } }>("/v1/models/*", async (request) => {
    const catalogue = catalogueNow();
    if (!catalogue) throw controlPlaneUnavailable();
    return findEntry(catalogue, request.params["*"]);
  });
}
