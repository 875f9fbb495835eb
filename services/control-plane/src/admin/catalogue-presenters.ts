// The catalogue as the admin API shows it to operators: every price component of every access path
// as an amount ({nano, usd}: USD per million tokens or USD each), with what was verified.
import { type PriceComponentsJson, type NanoRates, TOKEN_RATES, UNIT_PRICES } from "../catalogue/catalogue-file";
import type { CatalogueListing, CatalogueRevisionRow, ListedModel } from "../catalogue/catalogue-listing";
import { money } from "./presenters";

type Path = ListedModel["paths"][number];

/** A price as the catalogue keeps it (nano-USD in a string) as the API shows amounts. */
const priceAmount = (nano: string) => money(BigInt(nano));

/** Token rates (per million tokens) in the catalogue's order. */
const presentRates = (rates: NanoRates) =>
  TOKEN_RATES.flatMap((rate) =>
    rates[rate] === undefined ? [] : [{ component: rate, unit: "per_million_tokens", amount: priceAmount(rates[rate]) }],
  );

function presentPrice(path: Path) {
  const components = path.priceComponents as unknown as PriceComponentsJson;
  const text = (nano: bigint | null) => (nano === null ? undefined : nano.toString());
  const units: Record<string, string | undefined> = {
    image: text(path.imageNano),
    input_image: components.input_image,
    request: text(path.requestNano),
    web_search: components.web_search,
  };
  const { long_context, service_tiers } = components;
  return {
    rates: [
      ...presentRates({ ...components, input: text(path.inputNanoPerM), output: text(path.outputNanoPerM) }),
      ...UNIT_PRICES.flatMap((unit) =>
        units[unit] === undefined ? [] : [{ component: unit, unit: "each", amount: priceAmount(units[unit]) }],
      ),
    ],
    long_context: long_context ? { above_input_tokens: long_context.above_input_tokens, rates: presentRates(long_context) } : null,
    service_tiers: Object.entries(service_tiers ?? {}).map(([tier, rates]) => ({ tier, rates: presentRates(rates) })),
    verified: path.priceVerified,
    verified_components: components.verified_components ?? [],
    source: path.priceSource,
  };
}

export const presentCatalogueModel = (model: ListedModel) => ({
  id: model.id,
  curated: model.curated,
  tiers: model.tiers,
  purposes: model.purposes,
  owned_by: model.ownedBy,
  context_length: model.contextLength,
  max_output_tokens: model.maxOutputTokens,
  input_modalities: model.inputModalities,
  output_modalities: model.outputModalities,
  capabilities: { tools: model.tools, json_schema: model.jsonSchema, embeddings: model.embeddings },
  paths: model.paths.map((path) => ({
    provider: path.provider,
    upstream_model: path.upstreamModel,
    credentials: path.credentialsRef,
    price: presentPrice(path),
  })),
});

export const presentCatalogueRevision = (revision: CatalogueRevisionRow | null) =>
  revision === null ? null : { id: String(revision.id), source: revision.source, loaded_at: revision.loadedAt.toISOString() };

export const presentCatalogueListing = (listing: CatalogueListing, page: { limit: number; offset: number }) => ({
  revision: presentCatalogueRevision(listing.revision),
  total: listing.total,
  limit: page.limit,
  offset: page.offset,
  data: listing.models.map(presentCatalogueModel),
});
