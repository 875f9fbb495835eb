// A catalogue file checked beyond its JSON schema and turned into database rows: prices to nano-USD,
// every problem found written against its entry (catalogue-problems.ts).
import { providerEnvPrefix } from "@gateway/proto/provider-env";
import { parseUsd } from "../billing/money";
import {
  type CatalogueFile,
  type CatalogueModelEntry,
  type CataloguePriceEntry,
  type CatalogueTokenRates,
  type NanoRates,
  type PriceComponentsJson,
  type PriceComponent,
  rateKey,
  TIERS,
  TOKEN_RATES,
  type TokenRate,
  type UnitPrice,
  unitKey,
} from "./catalogue-file";
import { ProblemList } from "./catalogue-problems";
import { credentialOwner } from "./credential-owner";

export interface NormalizedPath {
  provider: string;
  upstreamModel: string;
  credentialsRef: string | null;
  inputNanoPerM: bigint | null;
  outputNanoPerM: bigint | null;
  imageNano: bigint | null;
  requestNano: bigint | null;
  priceVerified: boolean;
  priceSource: string | null;
  /** Every other component, nano-USD as decimal strings (the `price_components` column). */
  priceComponents: PriceComponentsJson;
}

export interface NormalizedModel {
  id: string;
  curated: boolean;
  position: number;
  tiers: string[];
  purposes: string[];
  ownedBy: string;
  created: number;
  contextLength: number;
  maxOutputTokens: number;
  inputModalities: string[];
  outputModalities: string[];
  tools: boolean;
  jsonSchema: boolean;
  embeddings: boolean;
  paths: NormalizedPath[];
}

/** Where in the file a check is: the words its messages start with, the pointer, the entry's model. */
interface Place {
  where: string;
  pointer: string;
  model: string | null;
  problems: ProblemList;
}

const inside = (place: Place, key: string, words = key): Place => ({
  ...place,
  where: `${place.where} ${words}`,
  pointer: `${place.pointer}/${key}`,
});

/** A USD amount in nano-USD; a text that is not one is a problem (null). */
function price(text: string | undefined, place: Place): bigint | null {
  if (text === undefined) return null;
  const nano = parseUsd(text);
  if (nano === undefined) place.problems.add(place.pointer, place.model, `${place.where}: "${text}" is not a USD amount`);
  return nano ?? null;
}

/** The rates given in a file's rate object, in nano-USD. */
function nanoRates(rates: CatalogueTokenRates, only: readonly TokenRate[], place: Place): NanoRates {
  const converted: NanoRates = {};
  for (const rate of only) {
    const nano = price(rates[rateKey(rate)], inside(place, rateKey(rate)));
    if (nano !== null) converted[rate] = nano.toString();
  }
  return converted;
}

/** Whether a rate object gives any rate (a malformed one is its own problem, not this one). */
const givesRate = (rates: CatalogueTokenRates) => TOKEN_RATES.some((rate) => rates[rateKey(rate)] !== undefined);

const OTHER_RATES = TOKEN_RATES.filter((rate) => rate !== "input" && rate !== "output");

/** The path's components beyond the four columns, checked: overrides name at least one rate, verified ones are set. */
function priceComponents(entry: CataloguePriceEntry | undefined, place: Place): PriceComponentsJson {
  if (!entry) return { verified_components: [] };
  const problem = (at: Place, message: string) => place.problems.add(at.pointer, at.model, `${at.where}: ${message}`);
  const components: PriceComponentsJson = { ...nanoRates(entry, OTHER_RATES, place), verified_components: [] };
  for (const unit of ["input_image", "web_search"] as const) {
    const nano = price(entry[unitKey(unit)], inside(place, unitKey(unit)));
    if (nano !== null) components[unit] = nano.toString();
  }
  if (entry.long_context) {
    const at = inside(place, "long_context");
    const rates = nanoRates(entry.long_context, TOKEN_RATES, at);
    if (!givesRate(entry.long_context)) problem(at, "gives no rate");
    components.long_context = { above_input_tokens: entry.long_context.above_input_tokens, ...rates };
  }
  if (entry.service_tiers) {
    components.service_tiers = {};
    for (const [tier, tierRates] of Object.entries(entry.service_tiers)) {
      const at = { ...place, where: `${place.where} service_tiers.${tier}`, pointer: `${place.pointer}/service_tiers/${tier}` };
      const rates = nanoRates(tierRates ?? {}, TOKEN_RATES, at);
      if (!givesRate(tierRates ?? {})) problem(at, "gives no rate");
      components.service_tiers[tier] = rates;
    }
  }
  const given = (component: PriceComponent): boolean =>
    component === "long_context" || component === "service_tiers"
      ? entry[component] !== undefined
      : (TOKEN_RATES as readonly string[]).includes(component)
        ? entry[rateKey(component as TokenRate)] !== undefined
        : entry[unitKey(component as UnitPrice)] !== undefined;
  // `verified` speaks for the base token prices the path has (an embeddings path has no output price).
  const base = (["input", "output"] as const).filter(given);
  const verified = entry.verified_components ?? (entry.verified ? base : []);
  const listed = inside(place, "verified_components");
  for (const component of verified) if (!given(component)) problem(listed, `${component} has no price`);
  if (entry.verified && !base.every((component) => verified.includes(component)))
    problem(listed, `a verified price lists ${base.join(" and ")}`);
  components.verified_components = [...verified];
  return components;
}

/** A path's `credentials` must be its own provider's variable (credential-owner.ts): never another vendor's key. */
function checkCredentials(path: CatalogueModelEntry["paths"][number], providers: ReadonlySet<string>, place: Place): void {
  if (path.credentials === undefined) return;
  const owner = credentialOwner(path.credentials, providers);
  if (owner === path.provider) return;
  const prefix = providerEnvPrefix(path.provider);
  place.problems.add(
    place.pointer,
    place.model,
    `${place.where}: credentials ${path.credentials} ${owner ? `belong to provider ${owner}` : "name no provider's key"}, not ${path.provider}'s` +
      ` (${prefix}_API_KEY or ${prefix}_<NAME>_API_KEY)`,
  );
}

function normalizeModel(
  model: CatalogueModelEntry,
  curated: boolean,
  position: number,
  place: Place,
  providers: ReadonlySet<string>,
): NormalizedModel {
  return {
    id: model.id,
    curated,
    position,
    tiers: curated ? (model.tiers ?? []) : [],
    purposes: curated ? (model.purposes ?? []) : [],
    ownedBy: model.owned_by ?? model.id.split("/")[0]!,
    created: model.created ?? 0,
    contextLength: model.context_length,
    maxOutputTokens: model.max_output_tokens,
    inputModalities: model.input_modalities ?? ["text"],
    outputModalities: model.output_modalities ?? [model.capabilities?.embeddings ? "embeddings" : "text"],
    tools: model.capabilities?.tools ?? false,
    jsonSchema: model.capabilities?.json_schema ?? false,
    embeddings: model.capabilities?.embeddings ?? false,
    paths: model.paths.map((path, index) => {
      const at: Place = { ...place, where: `${model.id} path ${index}`, pointer: `${place.pointer}/paths/${index}/price` };
      const base = (key: string) => ({ ...at, pointer: `${at.pointer}/${key}` });
      checkCredentials(path, providers, { ...at, pointer: `${place.pointer}/paths/${index}/credentials` });
      return {
        provider: path.provider,
        upstreamModel: path.upstream_model,
        credentialsRef: path.credentials ?? null,
        inputNanoPerM: price(path.price?.input_per_m, base("input_per_m")),
        outputNanoPerM: price(path.price?.output_per_m, base("output_per_m")),
        imageNano: price(path.price?.per_image, base("per_image")),
        requestNano: price(path.price?.per_request, base("per_request")),
        priceVerified: path.price?.verified ?? false,
        priceSource: path.price?.source ?? null,
        priceComponents: priceComponents(path.price, at),
      };
    }),
  };
}

/**
 * The checks the JSON schema cannot express, each problem written to `problems` against its entry.
 * `skip`: pointers of entries the schema already refused (`/models/3`): they are not read, and the
 * file-wide checks (every tier served, the embeddings default) wait until the file is whole.
 */
export function checkCatalogue(file: CatalogueFile, problems: ProblemList, skip: ReadonlySet<string> = new Set()): NormalizedModel[] {
  const seen = new Set<string>(); // ids compared case-insensitively: bare names are matched that way
  const entries = [
    ...file.models.map((model, index) => ({ model, curated: true, pointer: `/models/${index}` })),
    ...(file.inventory ?? []).map((model, index) => ({ model, curated: false, pointer: `/inventory/${index}` })),
  ];
  const models: NormalizedModel[] = [];
  // Every provider the file names: a credential belongs to the one whose name it spells the longest.
  const providers = new Set<string>();
  for (const { model } of entries) {
    // An entry the schema refused may have any shape.
    for (const path of Array.isArray(model.paths) ? model.paths : []) if (typeof path?.provider === "string") providers.add(path.provider);
  }
  entries.forEach(({ model, curated, pointer }, position) => {
    if (skip.has(pointer)) return;
    if (seen.has(model.id.toLowerCase())) problems.add(`${pointer}/id`, model.id, `model ${model.id} appears twice`);
    seen.add(model.id.toLowerCase());
    models.push(normalizeModel(model, curated, position, { where: model.id, pointer, model: model.id, problems }, providers));
  });
  if (skip.size > 0) return models;
  // auto:<tier> chooses among the tier's curated chat models with a priced path: each tier needs one.
  const servesTier = (model: NormalizedModel, tier: string) =>
    model.curated &&
    model.tiers.includes(tier) &&
    !model.embeddings &&
    model.paths.some((path) => path.inputNanoPerM !== null && path.outputNanoPerM !== null);
  for (const tier of TIERS) {
    if (!models.some((model) => servesTier(model, tier)))
      problems.add("/models", null, `no curated chat model with input and output prices is in the ${tier} tier`);
  }
  const embeddings = models.find((model) => model.id === file.defaults.embeddings);
  if (!embeddings?.embeddings)
    problems.add(
      "/defaults/embeddings",
      null,
      `defaults.embeddings names ${file.defaults.embeddings}, which is not an embeddings model of the file`,
    );
  return models;
}

/** The file's database rows; a file with any problem is refused with all of them (InvalidCatalogueError). */
export function normalizeCatalogue(file: CatalogueFile): NormalizedModel[] {
  const problems = new ProblemList();
  const models = checkCatalogue(file, problems);
  problems.refuseIfAny();
  return models;
}
