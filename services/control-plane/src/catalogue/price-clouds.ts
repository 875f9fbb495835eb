// The three cloud access paths (AWS Bedrock, Google Vertex AI, Azure OpenAI): where each cloud's own
// prices live in the public lists, and which upstream models a cloud lists for a vendor's models
// (docs/catalogue.md, "Cloud access paths"; docs/inventory.md). A cloud path's price is the cloud's,
// never the model vendor's: Bedrock and Vertex charge a premium on regional endpoints for newer
// Claude models, Azure's Data Zone deployments cost more than Global ones.
import { litellmFigure, modelsDevFigure, type Figure } from "./price-lists";
import type { LitellmEntry, ModelsDevModel, PriceLists } from "./price-list-entries";

export type Cloud = "bedrock" | "vertex" | "azure";

/** The catalogue's provider names of the clouds, in the order their paths are listed. */
export const CLOUDS: readonly Cloud[] = ["bedrock", "vertex", "azure"];

/** The cloud a catalogue provider name is, when it is one of the three default names (a second region's name is the operator's). */
export const cloudOf = (provider: string): Cloud | undefined => CLOUDS.find((cloud) => cloud === provider);

/** The models.dev providers that price a cloud's upstream model; the first that lists it gives models.dev's figure. */
function modelsDevProviders(cloud: Cloud, upstreamModel: string): string[] {
  if (cloud === "bedrock") return ["amazon-bedrock"];
  if (cloud === "azure") return ["azure"];
  return upstreamModel.startsWith("claude-") ? ["google-vertex-anthropic", "google-vertex"] : ["google-vertex"];
}

/**
 * litellm's keys for a cloud's upstream model, most specific first, and whether an entry is that
 * cloud's. Azure: the Global deployment keys first (`azure/global-standard/`, `azure/global/`), then
 * the bare `azure/<name>`, which holds the Global price for some models and the regional one for others.
 */
function litellmKeys(cloud: Cloud, upstreamModel: string): string[] {
  if (cloud === "bedrock") return [upstreamModel, `bedrock/${upstreamModel}`];
  if (cloud === "vertex") return [`vertex_ai/${upstreamModel}`, upstreamModel];
  return [`azure/global-standard/${upstreamModel}`, `azure/global/${upstreamModel}`, `azure/${upstreamModel}`];
}

const LITELLM_PROVIDER: Record<Cloud, (provider: string) => boolean> = {
  bedrock: (provider) => provider === "bedrock" || provider === "bedrock_converse",
  vertex: (provider) => provider.startsWith("vertex_ai"),
  azure: (provider) => provider === "azure",
};

const ofCloud = (cloud: Cloud, entry: LitellmEntry | undefined): entry is LitellmEntry =>
  entry !== undefined && LITELLM_PROVIDER[cloud](entry.litellm_provider ?? "");

/**
 * The cloud's own figures for an upstream model, by exact id, the one a path charges first: for
 * Vertex and Azure models.dev's entry, then litellm's (as for a vendor's direct path); for Bedrock
 * litellm's first, since models.dev prices a US (`us.`) inference profile of the newer Claude models
 * at the Global profile's price, where litellm (and AWS's 10% premium on geographic and in-region
 * endpoints) has it 10% dearer. `embeddings`: a missing output price is 0 (no output is produced).
 */
export function cloudFiguresById(cloud: Cloud, upstreamModel: string, lists: PriceLists, embeddings = false): Figure[] {
  const figures: Figure[] = [];
  const model = cloudModelsDevEntry(cloud, upstreamModel, lists);
  const provider = modelsDevProviders(cloud, upstreamModel).find((name) => lists.modelsDev[name]?.models[upstreamModel] === model);
  const fromModelsDev =
    model && modelsDevFigure(provider!, upstreamModel, embeddings ? { ...model, cost: { output: 0, ...model.cost } } : model);
  if (fromModelsDev) figures.push(fromModelsDev);
  const key = litellmKeys(cloud, upstreamModel).find((candidate) => ofCloud(cloud, lists.litellm[candidate]));
  const entry = key === undefined ? undefined : lists.litellm[key];
  const fromLitellm = entry && litellmFigure(key!, embeddings ? { output_cost_per_token: 0, ...entry } : entry);
  if (fromLitellm) figures[cloud === "bedrock" ? "unshift" : "push"](fromLitellm);
  return figures;
}

/** The cloud's models.dev entry for an upstream model (its limits and status), if any. */
export function cloudModelsDevEntry(cloud: Cloud, upstreamModel: string, lists: PriceLists): ModelsDevModel | undefined {
  for (const provider of modelsDevProviders(cloud, upstreamModel)) {
    const model = lists.modelsDev[provider]?.models[upstreamModel];
    if (model) return model;
  }
  return undefined;
}

/** One upstream model a cloud lists, and the names it is matched on against an OpenRouter id's model part. */
export interface CloudModel {
  upstreamModel: string;
  /** Spellings comparable with a vendor's native ids (`claude-sonnet-4-20250514`, `nova-lite-v1`). */
  keys: string[];
}

// Bedrock model ids are `[<geography>.]<vendor>.<model>[-v<N>][:<N>]`; the vendor part, as OpenRouter names the vendor.
const BEDROCK_ID = /^(?:(us|eu|apac|jp|au|global|us-gov|ca)\.)?([a-z0-9-]+)\.(.+)$/;
const BEDROCK_VENDORS: Record<string, string> = {
  anthropic: "anthropic",
  amazon: "amazon",
  openai: "openai",
  qwen: "qwen",
  mistral: "mistralai",
  meta: "meta-llama",
  deepseek: "deepseek",
  minimax: "minimax",
  moonshot: "moonshotai",
  moonshotai: "moonshotai",
  zai: "z-ai",
  google: "google",
  nvidia: "nvidia",
  writer: "writer",
  cohere: "cohere",
  xai: "x-ai",
};

/** `claude-sonnet-4-20250514-v1:0` -> `claude-sonnet-4-20250514`, `claude-sonnet-4-20250514-v1`; `nova-lite-v1:0` -> `nova-lite`, `nova-lite-v1`. */
function bedrockKeys(model: string): string[] {
  const unversioned = model.replace(/:\d+$/, "");
  // `-v1:0`, `-v1`, and `-1:0` (`openai.gpt-oss-120b-1:0`) are versions; `claude-opus-4-6` ends in a number of its own.
  const bare = /-v\d+(?::\d+)?$/.test(model) ? model.replace(/-v\d+(?::\d+)?$/, "") : model.replace(/(?:-\d+)?:\d+$/, "");
  return [...new Set([bare, unversioned])];
}

/**
 * The Bedrock models of an OpenRouter vendor that the default `bedrock` provider (us-east-1) can call:
 * the US cross-region inference profile (`us.`) where a list names one (newer models take no other id
 * on demand), else the in-region model id. Other geographies (`eu.`, `global.`...) are a second
 * provider's paths, which the operator writes.
 */
function bedrockModels(vendor: string, lists: PriceLists): CloudModel[] {
  const ids = new Set([
    ...Object.keys(lists.modelsDev["amazon-bedrock"]?.models ?? {}),
    ...Object.entries(lists.litellm)
      .filter(([key, entry]) => !key.includes("/") && ofCloud("bedrock", entry) && entry.mode === "chat")
      .map(([key]) => key),
  ]);
  const byModel = new Map<string, string>(); // the model part -> the id to call
  for (const id of [...ids].sort()) {
    const [, geography, bedrockVendor, model] = BEDROCK_ID.exec(id) ?? [];
    if (!model || BEDROCK_VENDORS[bedrockVendor!] !== vendor) continue;
    if (geography === undefined && !byModel.has(model)) byModel.set(model, id);
    if (geography === "us") byModel.set(model, id);
  }
  return [...byModel].map(([model, upstreamModel]) => ({ upstreamModel, keys: bedrockKeys(model) }));
}

/** Vertex ids pin a version with `@`: `claude-sonnet-4@20250514` is matched as `claude-sonnet-4-20250514`, `claude-opus-4-8@default` as `claude-opus-4-8`. */
const vertexKey = (id: string): string => id.replace(/@default$/, "").replace(/@(\d{8})$/, "-$1");

/**
 * Vertex's Claude (publisher anthropic) and Gemini (publisher google, embeddings too) models; the
 * partner models served by other APIs are left out.
 */
function vertexModels(vendor: string, lists: PriceLists, mode: "chat" | "embedding"): CloudModel[] {
  const prefix = vendor === "anthropic" && mode === "chat" ? "claude-" : vendor === "google" ? "gemini-" : undefined;
  if (prefix === undefined) return [];
  const provider = vendor === "anthropic" ? "google-vertex-anthropic" : "google-vertex";
  const ids = new Set([
    ...Object.keys(lists.modelsDev[provider]?.models ?? {}).filter((id) => (mode === "embedding") === id.includes("embedding")),
    ...Object.entries(lists.litellm)
      .filter(([, entry]) => ofCloud("vertex", entry) && entry.mode === mode)
      .map(([key]) => key.replace(/^vertex_ai\//, "")),
  ]);
  // An unpinned alias (litellm's `vertex_ai/claude-3-5-haiku`) is left out where a pinned version is listed: the
  // pinned id is what models.dev prices and marks deprecated, and an alias keeps a stale price (1 / 5 for 3.5 Haiku).
  const pinned = new Set([...ids].filter((id) => id.includes("@")).map((id) => id.slice(0, id.indexOf("@"))));
  return [...ids]
    .filter((id) => id.startsWith(prefix) && (id.includes("@") || !pinned.has(id)))
    .map((id) => ({ upstreamModel: id, keys: [vertexKey(id)] }));
}

/** Azure OpenAI deployments of OpenAI's models, named as the model (the default catalogue's convention). */
function azureModels(vendor: string, lists: PriceLists, mode: "chat" | "embedding"): CloudModel[] {
  if (vendor !== "openai") return [];
  const ids = new Set([
    ...Object.entries(lists.modelsDev.azure?.models ?? {})
      .filter(([id]) => (mode === "embedding") === id.includes("embedding"))
      .map(([id]) => id),
    ...Object.entries(lists.litellm)
      .filter(([key, entry]) => ofCloud("azure", entry) && entry.mode === mode && /^azure\/(?:global-standard\/|global\/)?[^/]+$/.test(key))
      .map(([key]) => key.slice(key.lastIndexOf("/") + 1)),
  ]);
  return [...ids].map((id) => ({ upstreamModel: id, keys: [id] }));
}

/** The upstream models a cloud lists for an OpenRouter vendor's models (`anthropic`, `google`, `openai`, `amazon`...). */
export function cloudModels(cloud: Cloud, vendor: string, lists: PriceLists, mode: "chat" | "embedding" = "chat"): CloudModel[] {
  if (cloud === "bedrock") return mode === "chat" ? bedrockModels(vendor, lists) : [];
  if (cloud === "vertex") return vertexModels(vendor, lists, mode);
  return azureModels(vendor, lists, mode);
}
