// The catalogue as the data plane uses it: received from the control plane,
// indexed once per revision, kept as the last good snapshot while the control
// plane is away.
import type { Catalogue__Output, Price__Output } from "@gateway/proto";

export interface Price {
  inputNanoPerM: bigint | null;
  outputNanoPerM: bigint | null;
  imageNano: bigint | null;
  requestNano: bigint | null;
  verified: boolean;
  source: string;
}

export interface AccessPath {
  provider: string;
  upstreamModel: string;
  credentialsRef: string;
  price: Price;
}

export interface ModelEntry {
  id: string;
  curated: boolean;
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
  paths: AccessPath[];
}

export interface CatalogueSnapshot {
  revision: string;
  /** Curated first, in catalogue order, then the inventory. */
  models: ModelEntry[];
  byId: Map<string, ModelEntry>;
  /** Lower-cased part after the last "/" of every id -> the models carrying it. */
  byBareName: Map<string, ModelEntry[]>;
  /** Tier -> its curated models, in catalogue order. */
  byTier: Map<string, ModelEntry[]>;
  defaults: { embeddings: string };
}

const optionalBigInt = (value: string | undefined): bigint | null => (value === undefined ? null : BigInt(value));

function toPrice(price: Price__Output | null): Price {
  return {
    inputNanoPerM: optionalBigInt(price?.inputNanoPerM),
    outputNanoPerM: optionalBigInt(price?.outputNanoPerM),
    imageNano: optionalBigInt(price?.imageNano),
    requestNano: optionalBigInt(price?.requestNano),
    verified: price?.verified ?? false,
    source: price?.source ?? "",
  };
}

export function bareName(id: string): string {
  return id.slice(id.lastIndexOf("/") + 1).toLowerCase();
}

export function buildSnapshot(catalogue: Catalogue__Output): CatalogueSnapshot {
  const models: ModelEntry[] = catalogue.models.map((model) => ({
    id: model.id,
    curated: model.curated,
    tiers: model.tiers,
    purposes: model.purposes,
    ownedBy: model.ownedBy,
    created: Number(model.created),
    contextLength: model.contextLength,
    maxOutputTokens: model.maxOutputTokens,
    inputModalities: model.inputModalities,
    outputModalities: model.outputModalities,
    tools: model.tools,
    jsonSchema: model.jsonSchema,
    embeddings: model.embeddings,
    paths: model.paths.map((path) => ({
      provider: path.provider,
      upstreamModel: path.upstreamModel,
      credentialsRef: path.credentialsRef,
      price: toPrice(path.price),
    })),
  }));
  const byId = new Map(models.map((model) => [model.id, model]));
  const byBareName = new Map<string, ModelEntry[]>();
  for (const model of models) {
    const name = bareName(model.id);
    byBareName.set(name, [...(byBareName.get(name) ?? []), model]);
  }
  const byTier = new Map<string, ModelEntry[]>();
  for (const model of models) {
    if (!model.curated) continue;
    for (const tier of model.tiers) byTier.set(tier, [...(byTier.get(tier) ?? []), model]);
  }
  return {
    revision: catalogue.revision,
    models,
    byId,
    byBareName,
    byTier,
    defaults: { embeddings: catalogue.defaults?.embeddings ?? "" },
  };
}
