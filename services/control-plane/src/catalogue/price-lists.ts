// The public price lists the inventory generator and `gatewayctl prices check` read (OpenRouter's
// model list, models.dev, litellm), and what each says a model costs: its input and output price
// and its other price components, in the catalogue's terms and units. See docs/inventory.md.
// Its parts: the lists' entries (price-list-entries.ts), the conversion of their figures
// (price-conversion.ts), their components (price-components.ts) and the vendors (price-vendors.ts);
// callers import them all from here.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { litellmComponents, modelsDevComponents, openrouterComponents } from "./price-components";
import { type TokenPrice, tokenPrice } from "./price-conversion";
import type { LitellmEntry, ModelsDevModel, OpenRouterModel, PriceLists } from "./price-list-entries";
import type { PriceSheet } from "./price-sheet";
import type { VendorSources } from "./price-vendors";

export { litellmComponents, modelsDevComponents, openrouterComponents } from "./price-components";
export { type TokenPrice, toNanoPerM, tokenPrice } from "./price-conversion";
export type { LitellmEntry, ModelsDevCost, ModelsDevModel, OpenRouterList, OpenRouterModel, PriceLists } from "./price-list-entries";
export { directVendor, VENDORS, type VendorSources } from "./price-vendors";

export type Publisher = "openrouter" | "models.dev" | "litellm";

/** One publisher's statement of a price, with where exactly it was read. */
export interface Figure {
  publisher: Publisher;
  label: string;
  price: TokenPrice;
  /** Every other component it states (cache, reasoning, media, unit prices, long context, service tiers). */
  components: PriceSheet;
}

/**
 * OpenRouter's own price for a model, or undefined when missing, variable or
 * negative. Its output price is the text one (`completion`): image and audio
 * output tokens have their own rates (`image_output`, `audio_output`), which are
 * components of the path, and OpenRouter reports those tokens apart
 * (`completion_tokens_details.image_tokens` / `audio_tokens`), so each kind is
 * billed at its own rate.
 */
export function openrouterFigure(model: OpenRouterModel, date: string): Figure | undefined {
  const price = tokenPrice(model.pricing?.prompt, model.pricing?.completion, "per-token");
  if (!price) return undefined;
  return { publisher: "openrouter", label: `OpenRouter ${date}`, price, components: openrouterComponents(model.pricing) };
}

/** models.dev's figure for a provider's model, when it gives input and output. */
export function modelsDevFigure(provider: string, id: string, model: ModelsDevModel): Figure | undefined {
  const price = tokenPrice(model.cost?.input, model.cost?.output, "per-million");
  return price && { publisher: "models.dev", label: `models.dev ${provider}/${id}`, price, components: modelsDevComponents(model.cost) };
}

/** litellm's figure for one of its keys, when it gives input and output. */
export function litellmFigure(key: string, entry: LitellmEntry): Figure | undefined {
  const price = tokenPrice(entry.input_cost_per_token, entry.output_cost_per_token, "per-token");
  return price && { publisher: "litellm", label: `litellm ${key}`, price, components: litellmComponents(entry) };
}

/** The vendor's own figures for a native id, by exact id: its models.dev entry, then its litellm entry. */
export function nativeFiguresById(vendor: VendorSources, nativeId: string, lists: PriceLists): Figure[] {
  const figures: Figure[] = [];
  const native = vendor.modelsDev ? lists.modelsDev[vendor.modelsDev]?.models[nativeId] : undefined;
  const fromModelsDev = native && modelsDevFigure(vendor.modelsDev!, nativeId, native);
  if (fromModelsDev) figures.push(fromModelsDev);
  const key = `${vendor.litellmPrefix ?? ""}${nativeId}`;
  const entry = vendor.litellmPrefix === undefined ? undefined : lists.litellm[key];
  const fromLitellm = entry?.litellm_provider === vendor.litellmProvider ? litellmFigure(key, entry!) : undefined;
  if (fromLitellm) figures.push(fromLitellm);
  return figures;
}

const readJson = <T>(file: string): T => JSON.parse(readFileSync(file, "utf8")) as T;

/** OpenRouter captures are `openrouter/<anything>.<YYYY-MM-DD>.json`; the date names them in `source` texts. */
const OPENROUTER_CAPTURE = /\.(\d{4}-\d{2}-\d{2})\.json$/;

/** Reads the three lists from a folder laid out like ../shared/data/catalogue (litellm/, models.dev/, openrouter/). */
export function readPriceLists(dataDir: string): PriceLists {
  const litellm = readJson<Record<string, LitellmEntry>>(path.join(dataDir, "litellm/model_prices_and_context_window.json"));
  delete litellm.sample_spec; // documentation, not a model
  const captures = readdirSync(path.join(dataDir, "openrouter"))
    .map((file) => ({ file, date: OPENROUTER_CAPTURE.exec(file)?.[1] }))
    .filter((capture): capture is { file: string; date: string } => capture.date !== undefined)
    .sort((a, b) => (a.date < b.date ? 1 : a.date > b.date ? -1 : 0)); // newest first: it decides the figures of ids in both
  return {
    openrouter: captures.map(({ file, date }) => ({
      date,
      models: readJson<{ data: OpenRouterModel[] }>(path.join(dataDir, "openrouter", file)).data,
    })),
    modelsDev: readJson<PriceLists["modelsDev"]>(path.join(dataDir, "models.dev/api.json")),
    litellm,
  };
}

/** OpenRouter's figure for an id from the newest list that has it. */
export function openrouterFigureById(id: string, lists: PriceLists): Figure | undefined {
  for (const list of lists.openrouter) {
    const model = list.models.find((candidate) => candidate.id === id);
    if (model) return openrouterFigure(model, list.date);
  }
  return undefined;
}
