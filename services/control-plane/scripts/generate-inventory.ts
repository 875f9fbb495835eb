// Builds the inventory (addressable models listed only with `GET /v1/models?all=1`) from the public
// model lists of OpenRouter, models.dev and litellm, read from DATA_DIR: a folder kept next to the
// clone, not in it. Paths: the vendor's own API, the clouds (Bedrock, Vertex, Azure), OpenRouter. See docs/inventory.md.
//   tsx services/control-plane/scripts/generate-inventory.ts           write src/catalogue/inventory.json
//   tsx services/control-plane/scripts/generate-inventory.ts --check   fail when inventory.json is stale
//                                                                        (says it did not run when DATA_DIR is absent)
//
// Verified rule: a path's price is `verified: true` only when at least two
// independent publishers (the OpenRouter list, models.dev, litellm) give the same
// input AND output price for that model within 0.5%. models.dev's `openrouter`
// provider is not counted: models.dev fills it with a sync script from the very
// OpenRouter API being checked, so it is a copy, not a second source. A free
// (0 / 0) price is kept only when it is verified the same way. Every other price
// component (cache reads and writes, long context, service tiers...) is verified
// the same way on its own and listed in `verified_components`.
import { existsSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { formatUsd } from "../src/billing/money";
import {
  type CatalogueFile,
  type CatalogueModelEntry,
  type CataloguePriceEntry,
  PRICE_COMPONENTS,
  type PriceComponent,
} from "../src/catalogue/catalogue-file";
import {
  type Figure,
  litellmFigure,
  modelsDevFigure,
  type ModelsDevModel,
  type OpenRouterModel,
  openrouterFigure,
  type PriceLists,
  type Publisher,
  readPriceLists,
  type TokenPrice,
  VENDORS,
} from "../src/catalogue/price-lists";
import { CLOUDS, cloudFiguresById, cloudModels, cloudModelsDevEntry } from "../src/catalogue/price-clouds";
import { componentOf, entryFields, valuesAgree, withinHalfPercent } from "../src/catalogue/price-sheet";

export interface SourceData extends PriceLists {
  /** Ids of the curated catalogue: the inventory must not repeat them. */
  curatedIds: ReadonlySet<string>;
}

// ---------------------------------------------------------------- prices

/** The sources' "same price": input and output each within 0.5% of each other. */
export const pricesAgree = (a: TokenPrice, b: TokenPrice): boolean =>
  withinHalfPercent(a.input, b.input) && withinHalfPercent(a.output, b.output);

export const isFree = (price: TokenPrice): boolean => price.input === 0n && price.output === 0n;

const describe = (figure: Figure): string => `${figure.label} ${formatUsd(figure.price.input)}/${formatUsd(figure.price.output)}`;

/**
 * Applies the verified rule to the price a path will charge (`chosen`) given what
 * the other sources say about the same model. Agreement needs two different
 * publishers; two figures from one publisher (say litellm's native and
 * openrouter/ entries) still count once.
 */
export function judgePrice(chosen: Figure, others: Figure[]): { verified: boolean; source: string } {
  const agreeing = others.filter((figure) => pricesAgree(figure.price, chosen.price));
  const differing = others.filter((figure) => !pricesAgree(figure.price, chosen.price));
  const publishers = new Set([chosen.publisher, ...agreeing.map((figure) => figure.publisher)]);
  const verified = publishers.size >= 2;
  const differs = differing.length ? `; differs: ${differing.map(describe).join(", ")}` : "";
  if (verified)
    return {
      verified,
      source: `verified: ${[chosen, ...agreeing].map((figure) => figure.label).join(" = ")} (shared/data/catalogue)${differs}`,
    };
  const alone = agreeing.length
    ? `${[chosen, ...agreeing].map((figure) => figure.label).join(" = ")} (one publisher)`
    : `only ${chosen.label}`;
  return { verified, source: `unverified: ${alone}${differs}` };
}

const PUBLISHER_NAMES: Record<Publisher, string> = { openrouter: "OpenRouter", "models.dev": "models.dev", litellm: "litellm" };
const names = (figures: Figure[]): string => [...new Set(figures.map((figure) => PUBLISHER_NAMES[figure.publisher]))].join(" = ");

/** The components beyond input and output, in the catalogue's order. */
const OTHER_COMPONENTS = PRICE_COMPONENTS.filter((component) => component !== "input" && component !== "output");

/** A figure's keys of one component (`long_context` has its threshold and each of its rates). */
const keysOf = (figure: Figure, component: PriceComponent): string[] =>
  [...figure.components.keys()].filter((key) => componentOf(key) === component);

/**
 * The verified rule for one component: `chosen` states it, and a figure from another publisher
 * states every one of its keys (a long-context tier: the same threshold and each rate) within 0.5%.
 * A figure differs when it states one of those keys otherwise; one silent on some of them (OpenRouter
 * prices Gemini's long-context audio, models.dev does not) neither confirms nor contradicts.
 */
export function judgeComponent(component: PriceComponent, chosen: Figure, others: Figure[]): { verified: boolean; verdict: string } {
  const keys = keysOf(chosen, component);
  const same = (figure: Figure, key: string) => valuesAgree(key, chosen.components.get(key)!, figure.components.get(key)!);
  const agreeing = others.filter((figure) => keys.every((key) => figure.components.has(key) && same(figure, key)));
  const differing = others.filter((figure) => keys.some((key) => figure.components.has(key) && !same(figure, key)));
  const verified = agreeing.some((figure) => figure.publisher !== chosen.publisher);
  const differs = differing.length ? `; differs: ${names(differing)}` : "";
  const stated = verified
    ? names([chosen, ...agreeing])
    : agreeing.length
      ? `${names([chosen])} (one publisher)`
      : `only ${names([chosen])}`;
  return { verified, verdict: `${verified ? "verified" : "unverified"} (${stated}${differs})` };
}

/**
 * The catalogue's price object for a judged figure (canonical "0.15" texts). Each other component
 * is charged as the first of `componentSources` that states it gives it (a direct path: models.dev's,
 * else litellm's), whole, and judged against every other figure. `source` says which components
 * were checked and how they fared; `verified_components` lists the verified ones, given whenever
 * the price has components beyond input and output.
 */
export function priceEntry(chosen: Figure, others: Figure[], componentSources: Figure[] = [chosen]): CataloguePriceEntry {
  const { verified, source } = judgePrice(chosen, others);
  const everyone = [chosen, ...others];
  const components = new Map<string, bigint>();
  const verifiedComponents: PriceComponent[] = verified ? ["input", "output"] : [];
  const verdicts = new Map<string, PriceComponent[]>(); // verdict -> its components, to say each verdict once
  for (const component of OTHER_COMPONENTS) {
    const stating = componentSources.find((figure) => keysOf(figure, component).length > 0);
    if (!stating) continue;
    for (const key of keysOf(stating, component)) components.set(key, stating.components.get(key)!);
    const judged = judgeComponent(
      component,
      stating,
      everyone.filter((figure) => figure !== stating),
    );
    if (judged.verified) verifiedComponents.push(component);
    verdicts.set(judged.verdict, [...(verdicts.get(judged.verdict) ?? []), component]);
  }
  const base = { input_per_m: formatUsd(chosen.price.input), output_per_m: formatUsd(chosen.price.output), ...entryFields(components) };
  if (components.size === 0) return { ...base, verified, source };
  const checked = [...verdicts].map(([verdict, list]) => `${list.join(", ")} ${verdict}`).join("; ");
  return { ...base, verified, verified_components: verifiedComponents, source: `${source}. Components: ${checked}` };
}

// ---------------------------------------------------------------- id mapping

/** Dots as dashes, no trailing date: `claude-sonnet-4.5` and `claude-sonnet-4-5-20250929` meet. */
export const matchKey = (id: string): string =>
  id
    .toLowerCase()
    .replaceAll(".", "-")
    .replace(/-(\d{8}|\d{4}-\d{2}-\d{2})$/, "");

const displayName = (name: string): string =>
  name
    .replace(/^[^:]*:\s*/, "")
    .replace(/\s*\(latest\)\s*$/i, "")
    .replace(/\s+/g, " ")
    .trim()
    .toLowerCase();

const pinned = (id: string): boolean => /-\d{8}$/.test(id);

/**
 * Maps an OpenRouter model (`anthropic/claude-sonnet-4`) to a provider-native id
 * (`claude-sonnet-4-20250514`) among `nativeIds`. There is no join key, so try, in
 * order: the same id; the canonical slug's id; the same id up to dots and a date
 * suffix; the same display name (models.dev `name` vs OpenRouter's name without
 * the "Vendor: " prefix). Among several matches a dated (pinned) id wins, then the
 * newest, so the pick does not move when an alias is retargeted.
 */
export function mapToNative(
  model: Pick<OpenRouterModel, "id" | "name" | "canonical_slug">,
  nativeIds: string[],
  nativeNames: ReadonlyMap<string, string> = new Map(),
): string | undefined {
  const part = model.id.slice(model.id.indexOf("/") + 1);
  if (part.includes(":")) return undefined; // `:free`, `:thinking`: OpenRouter-only variants
  if (nativeIds.includes(part)) return part;
  const slug = model.canonical_slug?.slice(model.canonical_slug.indexOf("/") + 1).replaceAll(".", "-");
  if (slug && nativeIds.includes(slug)) return slug;
  // The date is dropped on the native side only: a dated OpenRouter id
  // (`gpt-4o-2024-05-13`) must not fall back to the undated model, whose price differs.
  const key = part.toLowerCase().replaceAll(".", "-");
  let matches = nativeIds.filter((id) => matchKey(id) === key);
  if (matches.length === 0 && model.name) {
    const name = displayName(model.name);
    matches = nativeIds.filter((id) => nativeNames.has(id) && displayName(nativeNames.get(id)!) === name);
  }
  return [...matches].sort((a, b) => Number(pinned(b)) - Number(pinned(a)) || (a < b ? 1 : a > b ? -1 : 0))[0];
}

// ---------------------------------------------------------------- entries

const ID_PATTERN = /^[A-Za-z0-9._~:-]+\/[A-Za-z0-9._~:/-]+$/;

const positive = (value: number | null | undefined): number | undefined =>
  typeof value === "number" && Number.isInteger(value) && value > 0 ? value : undefined;

/** The smallest known limit: every listed path must accept what the entry promises. */
const smallest = (...values: (number | undefined)[]): number | undefined => {
  const known = values.filter((value): value is number => value !== undefined);
  return known.length ? Math.min(...known) : undefined;
};

/** The vendor-native figures (models.dev provider entry, litellm native entry) for an OpenRouter model. */
function nativeFigures(model: OpenRouterModel, data: SourceData): { nativeId?: string; native?: ModelsDevModel; figures: Figure[] } {
  const vendor = VENDORS[model.id.split("/")[0]!];
  if (!vendor) return { figures: [] };
  const figures: Figure[] = [];
  const provider = vendor.modelsDev ? data.modelsDev[vendor.modelsDev] : undefined;
  let nativeId: string | undefined;
  let native: ModelsDevModel | undefined;
  if (provider && vendor.modelsDev) {
    const names = new Map(Object.entries(provider.models).map(([id, entry]) => [id, entry.name ?? id]));
    nativeId = mapToNative(model, Object.keys(provider.models), names);
    native = nativeId === undefined ? undefined : provider.models[nativeId];
    const figure = native && modelsDevFigure(vendor.modelsDev, nativeId!, native);
    if (figure) figures.push(figure);
  }
  if (vendor.litellmPrefix !== undefined) {
    const prefix = vendor.litellmPrefix;
    const ids = Object.keys(data.litellm)
      .filter(
        (key) =>
          key.startsWith(prefix) && data.litellm[key]!.litellm_provider === vendor.litellmProvider && data.litellm[key]!.mode === "chat",
      )
      .map((key) => key.slice(prefix.length));
    // Prefer litellm's entry for the very native id models.dev gave; else map on its own.
    const litellmId = nativeId !== undefined && ids.includes(nativeId) ? nativeId : mapToNative(model, ids);
    const entry = litellmId === undefined ? undefined : data.litellm[`${prefix}${litellmId}`];
    const figure = entry && litellmFigure(`${prefix}${litellmId}`, entry);
    if (figure) figures.push(figure);
  }
  return { nativeId, native, figures };
}

/** A path and the limits its source states for the model (the entry promises the smallest). */
type PathWithLimits = { path: CatalogueModelEntry["paths"][number]; context?: number; maxOutput?: number };

/** A direct path (openai / anthropic / google) when models.dev maps the id to a live native model. */
function directPath(model: OpenRouterModel, data: SourceData, openrouterFigure: Figure | undefined): PathWithLimits | undefined {
  const vendor = VENDORS[model.id.split("/")[0]!];
  if (!vendor?.direct) return undefined;
  const { nativeId, native, figures } = nativeFigures(model, data);
  // A retired model would only fail upstream; its price still counts as a figure elsewhere.
  if (nativeId === undefined || !native || native.status === "deprecated") return undefined;
  const [chosen, ...rest] = figures; // models.dev first, then litellm: the provider's own list price
  if (!chosen) return undefined;
  if (isFree(chosen.price)) return undefined; // no direct provider bills nothing
  const others = [...rest, ...(openrouterFigure ? [openrouterFigure] : [])];
  return {
    path: {
      provider: vendor.direct.provider,
      upstream_model: nativeId,
      credentials: vendor.direct.credentials,
      // Components too are the provider's own: models.dev's, else litellm's (never OpenRouter's).
      price: priceEntry(chosen, others, figures),
    },
    context: positive(native.limit?.context),
    maxOutput: positive(native.limit?.output),
  };
}

/**
 * The clouds' paths for a model (Bedrock, Vertex, Azure, in that order): the cloud's own upstream id
 * for it, found as a direct path's native id is (mapToNative on the ids the cloud lists for the
 * vendor), priced with the cloud's own figures (price-clouds.ts says which is charged first) and
 * verified when the other of the two agrees: never the vendor's or OpenRouter's figures, which are not
 * what the cloud bills. No `credentials`: each cloud's own credential chain authenticates the call.
 * A model models.dev marks deprecated on that cloud gets no path there.
 */
export function cloudPaths(
  model: Pick<OpenRouterModel, "id" | "name" | "canonical_slug">,
  data: PriceLists,
  mode: "chat" | "embedding" = "chat",
): PathWithLimits[] {
  const vendor = model.id.split("/")[0]!;
  const paths: PathWithLimits[] = [];
  for (const cloud of CLOUDS) {
    const byKey = new Map<string, string>();
    for (const listed of cloudModels(cloud, vendor, data, mode))
      for (const key of listed.keys) if (!byKey.has(key)) byKey.set(key, listed.upstreamModel);
    const key = mapToNative(model, [...byKey.keys()]);
    if (key === undefined) continue;
    const upstreamModel = byKey.get(key)!;
    const listed = cloudModelsDevEntry(cloud, upstreamModel, data);
    if (listed?.status === "deprecated") continue;
    const figures = cloudFiguresById(cloud, upstreamModel, data, mode === "embedding");
    const [chosen, ...others] = figures;
    if (!chosen || isFree(chosen.price)) continue;
    paths.push({
      path: { provider: cloud, upstream_model: upstreamModel, price: priceEntry(chosen, others, figures) },
      context: positive(listed?.limit?.context),
      maxOutput: positive(listed?.limit?.output),
    });
  }
  return paths;
}

/** Only text output is billed per token alone; a zero price on audio or image output means "priced otherwise", not free. */
const textOnly = (model: OpenRouterModel): boolean =>
  (model.architecture?.output_modalities ?? ["text"]).every((modality) => modality === "text");

/** One inventory entry for an OpenRouter id, or undefined when nothing can price it. */
export function entryForOpenRouterModel(model: OpenRouterModel, date: string, data: SourceData): CatalogueModelEntry | undefined {
  const orFigure = openrouterFigure(model, date);
  const paths: CatalogueModelEntry["paths"] = [];
  const direct = directPath(model, data, orFigure);
  if (direct) paths.push(direct.path);
  const clouds = cloudPaths(model, data);
  for (const cloud of clouds) paths.push(cloud.path);
  if (orFigure) {
    // Only the vendor's own figures (models.dev's and litellm's native entries) can confirm
    // OpenRouter's price: models.dev's openrouter provider and litellm's openrouter/ entries
    // are copies of OpenRouter's list, so they do not count as a second source.
    const others = nativeFigures(model, data).figures;
    // OpenRouter bills its own component prices (cache, per request, per search...): the path charges them.
    const price = priceEntry(orFigure, others);
    // Free only when another publisher agrees it is free (free tiers come and go)
    // and the model outputs text only (Lyria lists 0/0 tokens but bills per clip).
    if (!isFree(orFigure.price) || (price.verified && textOnly(model)))
      paths.push({ provider: "openrouter", upstream_model: model.id, credentials: "OPENROUTER_API_KEY", price });
  }
  const context = smallest(
    positive(model.context_length) ?? positive(model.top_provider?.context_length),
    direct?.context,
    ...clouds.map((cloud) => cloud.context),
  );
  if (paths.length === 0 || context === undefined) return undefined;
  const parameters = model.supported_parameters ?? [];
  return {
    id: model.id,
    owned_by: model.id.split("/")[0]!,
    ...(positive(model.created) ? { created: model.created! } : {}),
    context_length: context,
    max_output_tokens:
      smallest(positive(model.top_provider?.max_completion_tokens), direct?.maxOutput, ...clouds.map((cloud) => cloud.maxOutput)) ?? 0,
    input_modalities: model.architecture?.input_modalities?.length ? model.architecture.input_modalities : ["text"],
    output_modalities: model.architecture?.output_modalities?.length ? model.architecture.output_modalities : ["text"],
    capabilities: { tools: parameters.includes("tools"), json_schema: parameters.includes("structured_outputs"), embeddings: false },
    paths,
  };
}

/** Embedding models come from litellm (OpenRouter's list is chat only): OpenAI and the Gemini API. */
const EMBEDDING_SOURCES = [
  { litellmProvider: "openai", prefix: "", vendor: "openai" },
  { litellmProvider: "gemini", prefix: "gemini/", vendor: "google" },
] as const;

// `text-embedding-ada-002-v2` is the name the API reports in responses (litellm keeps
// it for cost lookup), not a model one can call.
const NOT_CALLABLE = new Set(["text-embedding-ada-002-v2"]);

/** Embeddings entries: direct path only, output price 0, verified against models.dev where it lists the model. */
export function embeddingEntries(data: SourceData): CatalogueModelEntry[] {
  const entries: CatalogueModelEntry[] = [];
  for (const source of EMBEDDING_SOURCES) {
    const vendor = VENDORS[source.vendor]!;
    for (const [key, entry] of Object.entries(data.litellm)) {
      if (entry.mode !== "embedding" || entry.litellm_provider !== source.litellmProvider || !key.startsWith(source.prefix)) continue;
      const nativeId = key.slice(source.prefix.length);
      // litellm files gemini-1.5-flash under mode "embedding"; only real embedding models qualify.
      if (!nativeId.includes("embedding") || NOT_CALLABLE.has(nativeId)) continue;
      // An embeddings model produces no output: a missing output price is 0.
      const fromLitellm = litellmFigure(key, { output_cost_per_token: 0, ...entry });
      if (!fromLitellm || isFree(fromLitellm.price)) continue;
      const native = data.modelsDev[vendor.modelsDev!]?.models[nativeId];
      const fromModelsDev = native && modelsDevFigure(vendor.modelsDev!, nativeId, { ...native, cost: { output: 0, ...native.cost } });
      const figures: Figure[] = [...(fromModelsDev ? [fromModelsDev] : []), fromLitellm];
      const [chosen, ...others] = figures;
      const clouds = cloudPaths({ id: `${source.vendor}/${nativeId}` }, data, "embedding");
      const context = smallest(positive(entry.max_input_tokens), positive(native?.limit?.context), ...clouds.map((cloud) => cloud.context));
      if (!chosen || context === undefined) continue;
      entries.push({
        id: `${source.vendor}/${nativeId}`,
        owned_by: source.vendor,
        context_length: context,
        max_output_tokens: 0,
        input_modalities: ["text"],
        output_modalities: ["embeddings"],
        capabilities: { tools: false, json_schema: false, embeddings: true },
        paths: [
          {
            provider: vendor.direct!.provider,
            upstream_model: nativeId,
            credentials: vendor.direct!.credentials,
            price: priceEntry(chosen, others, figures),
          },
          ...clouds.map((cloud) => cloud.path),
        ],
      });
    }
  }
  return entries;
}

/**
 * The whole inventory, sorted by id. Skipped: curated ids (the inventory is
 * appended after them and an id appears once), `~vendor/...` moving aliases (their
 * target changes under the same id), ids the catalogue's pattern refuses, and
 * models nothing can price.
 */
export function buildInventory(data: SourceData): CatalogueModelEntry[] {
  const byId = new Map<string, CatalogueModelEntry>();
  for (const list of data.openrouter) {
    for (const model of list.models) {
      if (byId.has(model.id) || data.curatedIds.has(model.id) || model.id.startsWith("~") || !ID_PATTERN.test(model.id)) continue;
      const entry = entryForOpenRouterModel(model, list.date, data);
      if (entry) byId.set(model.id, entry);
    }
  }
  for (const entry of embeddingEntries(data)) {
    if (!byId.has(entry.id) && !data.curatedIds.has(entry.id)) byId.set(entry.id, entry);
  }
  return [...byId.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** The file's bytes: same input, same bytes. */
export const serializeInventory = (entries: CatalogueModelEntry[]): string => `${JSON.stringify(entries, null, 2)}\n`;

/** Models whose paths carry at least one verified price, and the count per provider. */
export function verifiedSummary(entries: CatalogueModelEntry[]): { models: number; byProvider: Record<string, number> } {
  const byProvider: Record<string, number> = {};
  for (const path of entries.flatMap((entry) => entry.paths))
    if (path.price?.verified) byProvider[path.provider] = (byProvider[path.provider] ?? 0) + 1;
  return { models: entries.filter((entry) => entry.paths.some((path) => path.price?.verified)).length, byProvider };
}

// ---------------------------------------------------------------- files

export const REPO_ROOT = path.resolve(import.meta.dirname, "../../..");
export const DATA_DIR = path.resolve(REPO_ROOT, "../shared/data/catalogue");
export const INVENTORY_FILE = path.join(REPO_ROOT, "services/control-plane/src/catalogue/inventory.json");
const CURATED_FILE = path.join(REPO_ROOT, "services/control-plane/src/catalogue/default-catalogue.json");

const readJson = <T>(file: string): T => JSON.parse(readFileSync(file, "utf8")) as T;

export function readSources(dataDir = DATA_DIR, curatedFile = CURATED_FILE): SourceData {
  return { ...readPriceLists(dataDir), curatedIds: new Set(readJson<CatalogueFile>(curatedFile).models.map((model) => model.id)) };
}

/**
 * `--check`: ok when inventory.json is what the generator makes, not ok when it is stale. Without its
 * input the check cannot run: `ran` is false, the message says so, and it does not fail the build.
 */
export function checkInventory(dataDir = DATA_DIR, inventoryFile = INVENTORY_FILE): { ok: boolean; ran: boolean; message: string } {
  if (!existsSync(dataDir))
    return {
      ok: true,
      ran: false,
      message: `inventory check did not run: ${dataDir} is absent, so ${path.relative(REPO_ROOT, inventoryFile)} was not compared`,
    };
  const expected = serializeInventory(buildInventory(readSources(dataDir)));
  const actual = existsSync(inventoryFile) ? readFileSync(inventoryFile, "utf8") : "";
  return expected === actual
    ? { ok: true, ran: true, message: `${path.relative(REPO_ROOT, inventoryFile)} is up to date` }
    : {
        ok: false,
        ran: true,
        message: `${path.relative(REPO_ROOT, inventoryFile)} is stale (differs from what ${path.relative(REPO_ROOT, dataDir)} and default-catalogue.json give): run \`pnpm gen:inventory\``,
      };
}

function main(): void {
  if (process.argv.includes("--check")) {
    const { ok, ran, message } = checkInventory();
    // Stale, or not checked at all: stderr, so neither reads as a pass. Only stale fails.
    (ok && ran ? console.log : console.error)(message);
    process.exit(ok ? 0 : 1);
  }
  if (!existsSync(DATA_DIR)) {
    console.error(`cannot generate the inventory: ${DATA_DIR} is absent`);
    process.exit(1);
  }
  const entries = buildInventory(readSources());
  writeFileSync(INVENTORY_FILE, serializeInventory(entries));
  const { models, byProvider } = verifiedSummary(entries);
  console.log(
    `wrote ${entries.length} models to ${path.relative(REPO_ROOT, INVENTORY_FILE)}; ${models} with a verified price (verified paths: ${JSON.stringify(byProvider)})`,
  );
}

// Run only as a script, so tests can import the pure functions above.
if (process.argv[1] && realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url))) main();
