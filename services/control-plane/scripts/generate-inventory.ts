// Builds the inventory (addressable models listed only with `GET /v1/models?all=1`) from the public
// model lists of OpenRouter, models.dev and litellm, read from DATA_DIR: a folder kept next to the
// clone, not in it. See docs/inventory.md.
//   tsx services/control-plane/scripts/generate-inventory.ts           write src/catalogue/inventory.json
//   tsx services/control-plane/scripts/generate-inventory.ts --check   fail when inventory.json is stale
//                                                                        (says it did not run when DATA_DIR is absent)
//
// Verified rule: a path's price is `verified: true` only when at least two
// independent publishers (the OpenRouter list, models.dev, litellm) give the same
// input AND output price for that model within 0.5%. models.dev's `openrouter`
// provider is not counted: models.dev fills it with a sync script from the very
// OpenRouter API being checked, so it is a copy, not a second source. A free
// (0 / 0) price is kept only when it is verified the same way.
import { existsSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { formatUsd } from "../src/billing/money";
import type { CatalogueFile, CatalogueModelEntry, CataloguePriceEntry } from "../src/catalogue/catalogue-file";

// ---------------------------------------------------------------- input shapes

/** The fields of an OpenRouter `GET /api/v1/models` entry the generator reads. */
export interface OpenRouterModel {
  id: string;
  name?: string;
  canonical_slug?: string;
  created?: number;
  context_length?: number | null;
  architecture?: { input_modalities?: string[]; output_modalities?: string[] };
  pricing?: Record<string, unknown>;
  top_provider?: { context_length?: number | null; max_completion_tokens?: number | null };
  supported_parameters?: string[];
}

/** A models.dev `api.json` provider-model entry (costs already USD per 1M tokens). */
export interface ModelsDevModel {
  id: string;
  name?: string;
  status?: string;
  cost?: { input?: number; output?: number };
  limit?: { context?: number; output?: number };
}

/** A litellm `model_prices_and_context_window.json` entry (costs USD per token). */
export interface LitellmEntry {
  litellm_provider?: string;
  mode?: string;
  input_cost_per_token?: number;
  output_cost_per_token?: number;
  max_input_tokens?: number;
  max_output_tokens?: number;
}

export interface OpenRouterList {
  /** Capture date, used in `source` texts. */
  date: string;
  models: OpenRouterModel[];
}

export interface SourceData {
  /** Newest first: an id takes its figures from the first list that has it. */
  openrouter: OpenRouterList[];
  modelsDev: Record<string, { models: Record<string, ModelsDevModel> }>;
  litellm: Record<string, LitellmEntry>;
  /** Ids of the curated catalogue: the inventory must not repeat them. */
  curatedIds: ReadonlySet<string>;
}

// ---------------------------------------------------------------- prices

/** Input and output price in integer nano-USD per million tokens. */
export interface TokenPrice {
  input: bigint;
  output: bigint;
}

export type Publisher = "openrouter" | "models.dev" | "litellm";

/** One publisher's statement of a price, with where exactly it was read. */
export interface Figure {
  publisher: Publisher;
  label: string;
  price: TokenPrice;
}

const DECIMAL = /^(-?)(\d*)(?:\.(\d*))?(?:e([+-]?\d+))?$/i;

/**
 * Exact conversion of a price as the sources write it (OpenRouter: per-token
 * decimal strings; litellm: per-token JSON numbers; models.dev: per-1M numbers)
 * to nano-USD per million tokens. Decimal arithmetic on the text, not floats,
 * because 1.5e-7 * 1e6 is 0.15000000000000002 in binary. Rounds to the nearest
 * nano-USD (the catalogue's resolution). Missing, non-numeric and negative values
 * (OpenRouter's "-1" = variable pricing) give undefined.
 */
export function toNanoPerM(value: unknown, unit: "per-token" | "per-million"): bigint | undefined {
  let text: string;
  if (typeof value === "number") {
    if (!Number.isFinite(value)) return undefined;
    text = String(value);
  } else if (typeof value === "string") {
    text = value.trim();
  } else {
    return undefined;
  }
  const match = DECIMAL.exec(text);
  if (!match) return undefined;
  const [, sign, whole = "", fraction = "", exponent = "0"] = match;
  if (whole === "" && fraction === "") return undefined;
  const digits = BigInt(`${whole}${fraction}` || "0");
  if (sign === "-" && digits !== 0n) return undefined;
  const scale = Number(exponent) - fraction.length + 9 + (unit === "per-token" ? 6 : 0);
  if (scale >= 0) return digits * 10n ** BigInt(scale);
  const divisor = 10n ** BigInt(-scale);
  return (digits + divisor / 2n) / divisor;
}

/** Both parts of a price, or undefined when either is missing or unusable. */
export function tokenPrice(input: unknown, output: unknown, unit: "per-token" | "per-million"): TokenPrice | undefined {
  const inputNano = toNanoPerM(input, unit);
  const outputNano = toNanoPerM(output, unit);
  return inputNano === undefined || outputNano === undefined ? undefined : { input: inputNano, output: outputNano };
}

const within = (a: bigint, b: bigint): boolean => {
  const difference = a > b ? a - b : b - a;
  const larger = a > b ? a : b;
  return difference * 1000n <= larger * 5n; // 0.5 %
};

/** The sources' "same price": input and output each within 0.5% of each other. */
export const pricesAgree = (a: TokenPrice, b: TokenPrice): boolean => within(a.input, b.input) && within(a.output, b.output);

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

/** The catalogue's price object for a judged figure (canonical "0.15" text). */
export function priceEntry(chosen: Figure, others: Figure[], extra: Partial<CataloguePriceEntry> = {}): CataloguePriceEntry {
  const { verified, source } = judgePrice(chosen, others);
  return { input_per_m: formatUsd(chosen.price.input), output_per_m: formatUsd(chosen.price.output), ...extra, verified, source };
}

// ---------------------------------------------------------------- id mapping

/** Where a vendor's own prices live in models.dev and litellm, and its direct adapter if the data plane has one. */
interface VendorSources {
  modelsDev?: string;
  litellmPrefix?: string;
  litellmProvider?: string;
  direct?: { provider: string; credentials: string };
}

// Direct paths only for the three providers the data plane has adapters for; the
// other vendors' native prices still serve as a second opinion on OpenRouter's.
export const VENDORS: Record<string, VendorSources> = {
  openai: {
    modelsDev: "openai",
    litellmPrefix: "",
    litellmProvider: "openai",
    direct: { provider: "openai", credentials: "OPENAI_API_KEY" },
  },
  anthropic: {
    modelsDev: "anthropic",
    litellmPrefix: "",
    litellmProvider: "anthropic",
    direct: { provider: "anthropic", credentials: "ANTHROPIC_API_KEY" },
  },
  google: {
    modelsDev: "google",
    litellmPrefix: "gemini/",
    litellmProvider: "gemini",
    direct: { provider: "google", credentials: "GEMINI_API_KEY" },
  },
  deepseek: { modelsDev: "deepseek", litellmPrefix: "deepseek/", litellmProvider: "deepseek" },
  mistralai: { modelsDev: "mistral", litellmPrefix: "mistral/", litellmProvider: "mistral" },
  "x-ai": { modelsDev: "xai", litellmPrefix: "xai/", litellmProvider: "xai" },
  moonshotai: { modelsDev: "moonshotai", litellmPrefix: "moonshot/", litellmProvider: "moonshot" },
  minimax: { modelsDev: "minimax", litellmPrefix: "minimax/", litellmProvider: "minimax" },
  "z-ai": { modelsDev: "zai", litellmPrefix: "zai/", litellmProvider: "zai" },
  perplexity: { modelsDev: "perplexity", litellmPrefix: "perplexity/", litellmProvider: "perplexity" },
  qwen: { modelsDev: "alibaba", litellmPrefix: "dashscope/", litellmProvider: "dashscope" },
  cohere: { modelsDev: "cohere" },
  xiaomi: { modelsDev: "xiaomi" },
  inception: { modelsDev: "inception" },
  upstage: { modelsDev: "upstage" },
  poolside: { modelsDev: "poolside" },
  sakana: { modelsDev: "sakana" },
  morph: { modelsDev: "morph" },
  stepfun: { modelsDev: "stepfun" },
};

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
    const price = native && tokenPrice(native.cost?.input, native.cost?.output, "per-million");
    if (price) figures.push({ publisher: "models.dev", label: `models.dev ${vendor.modelsDev}/${nativeId}`, price });
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
    const price = entry && tokenPrice(entry.input_cost_per_token, entry.output_cost_per_token, "per-token");
    if (price) figures.push({ publisher: "litellm", label: `litellm ${prefix}${litellmId}`, price });
  }
  return { nativeId, native, figures };
}

/** A direct path (openai / anthropic / google) when models.dev maps the id to a live native model. */
function directPath(
  model: OpenRouterModel,
  data: SourceData,
  openrouterFigure: Figure | undefined,
): { path: CatalogueModelEntry["paths"][number]; context?: number; maxOutput?: number } | undefined {
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
      price: priceEntry(chosen, others),
    },
    context: positive(native.limit?.context),
    maxOutput: positive(native.limit?.output),
  };
}

/**
 * OpenRouter's own price for a model, or undefined when missing, variable or
 * negative. Image and audio generators bill their output tokens at a higher rate
 * (`image_output`, `audio_output`) than text; the catalogue has one output price,
 * so it takes the highest: a call is never billed below what the upstream charges.
 */
export function openrouterFigure(model: OpenRouterModel, date: string): Figure | undefined {
  const price = tokenPrice(model.pricing?.prompt, model.pricing?.completion, "per-token");
  if (!price) return undefined;
  const media = [model.pricing?.image_output, model.pricing?.audio_output]
    .map((value) => toNanoPerM(value, "per-token"))
    .filter((value): value is bigint => value !== undefined);
  const highest = media.reduce((max, value) => (value > max ? value : max), price.output);
  const label = highest > price.output ? `OpenRouter ${date} (output at its image/audio token rate)` : `OpenRouter ${date}`;
  return { publisher: "openrouter", label, price: { input: price.input, output: highest } };
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
  if (orFigure) {
    // Only the vendor's own figures (models.dev's and litellm's native entries) can confirm
    // OpenRouter's price: models.dev's openrouter provider and litellm's openrouter/ entries
    // are copies of OpenRouter's list, so they do not count as a second source.
    const others = nativeFigures(model, data).figures;
    // pricing.request is USD per request: the "per-million" unit is a plain USD -> nano conversion.
    const perRequest = toNanoPerM(model.pricing?.request, "per-million");
    const extra = perRequest ? { per_request: formatUsd(perRequest) } : {};
    const price = priceEntry(orFigure, others, extra);
    // Free only when another publisher agrees it is free (free tiers come and go)
    // and the model outputs text only (Lyria lists 0/0 tokens but bills per clip).
    if (!isFree(orFigure.price) || (price.verified && textOnly(model)))
      paths.push({ provider: "openrouter", upstream_model: model.id, credentials: "OPENROUTER_API_KEY", price });
  }
  const context = smallest(positive(model.context_length) ?? positive(model.top_provider?.context_length), direct?.context);
  if (paths.length === 0 || context === undefined) return undefined;
  const parameters = model.supported_parameters ?? [];
  return {
    id: model.id,
    owned_by: model.id.split("/")[0]!,
    ...(positive(model.created) ? { created: model.created! } : {}),
    context_length: context,
    max_output_tokens: smallest(positive(model.top_provider?.max_completion_tokens), direct?.maxOutput) ?? 0,
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
      const litellmPrice = tokenPrice(entry.input_cost_per_token, entry.output_cost_per_token ?? 0, "per-token");
      if (!litellmPrice || isFree(litellmPrice)) continue;
      const native = data.modelsDev[vendor.modelsDev!]?.models[nativeId];
      const nativePrice = native && tokenPrice(native.cost?.input, native.cost?.output ?? 0, "per-million");
      const figures: Figure[] = [
        ...(nativePrice
          ? [{ publisher: "models.dev" as const, label: `models.dev ${vendor.modelsDev}/${nativeId}`, price: nativePrice }]
          : []),
        { publisher: "litellm", label: `litellm ${key}`, price: litellmPrice },
      ];
      const [chosen, ...others] = figures;
      const context = smallest(positive(entry.max_input_tokens), positive(native?.limit?.context));
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
            price: priceEntry(chosen, others),
          },
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

// Newest list first: it decides the figures of ids present in both.
const OPENROUTER_LISTS = [
  { date: "2026-08-01", file: "openrouter/openrouter.api.v1.models.2026-08-01.json" },
  { date: "2026-05-15", file: "openrouter/openrouter.api.v1.models.2026-05-15.json" },
];

const readJson = <T>(file: string): T => JSON.parse(readFileSync(file, "utf8")) as T;

export function readSources(dataDir = DATA_DIR, curatedFile = CURATED_FILE): SourceData {
  const litellm = readJson<Record<string, LitellmEntry>>(path.join(dataDir, "litellm/model_prices_and_context_window.json"));
  delete litellm.sample_spec; // documentation, not a model
  return {
    openrouter: OPENROUTER_LISTS.map(({ date, file }) => ({
      date,
      models: readJson<{ data: OpenRouterModel[] }>(path.join(dataDir, file)).data,
    })),
    modelsDev: readJson<SourceData["modelsDev"]>(path.join(dataDir, "models.dev/api.json")),
    litellm,
    curatedIds: new Set(readJson<CatalogueFile>(curatedFile).models.map((model) => model.id)),
  };
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
