// Turns the `model` a caller sent into a concrete catalogue model
// (spec 4.1 rules 1-4, decisions.md "Model resolution").
import type { CatalogueSnapshot, ModelEntry } from "../catalogue/catalogue-snapshot";
import { bareName } from "../catalogue/catalogue-snapshot";
import { invalidRequest } from "../errors";

export const TIERS = ["economy", "balanced", "quality"] as const;
export type Tier = (typeof TIERS)[number];

export interface Resolution {
  requested: string;
  model: ModelEntry;
  /** The tier an intent alias stood for. */
  tier: Tier | undefined;
}

export function isTier(value: string): value is Tier {
  return (TIERS as readonly string[]).includes(value);
}

export function resolveModel(
  requested: unknown,
  catalogue: CatalogueSnapshot,
  context: { endpoint: "chat" | "embeddings"; serviceTier: Tier | undefined },
): Resolution {
  if (typeof requested !== "string" || requested.trim() === "") throw invalidRequest("model_required", "The request must name a model.");

  if (requested === "auto" && context.endpoint === "embeddings") {
    return { requested, model: byId(catalogue, catalogue.defaults.embeddings, requested), tier: undefined };
  }
  if (requested === "auto" || requested.startsWith("auto:")) {
    const tier = requested === "auto" ? (context.serviceTier ?? "balanced") : requested.slice("auto:".length);
    if (!isTier(tier)) throw invalidRequest("model_unknown", `Unknown tier "${tier}": use auto:economy, auto:balanced or auto:quality.`);
    const id = catalogue.defaults.tiers[tier];
    if (!id) throw invalidRequest("no_eligible_model", `No model is configured for tier ${tier}.`);
    return { requested, model: byId(catalogue, id, requested), tier };
  }

  if (requested.includes("/")) {
    const model = catalogue.byId.get(requested);
    if (!model) {
      // Callable whether or not listed, but only when something can price it.
      throw invalidRequest("model_unknown", `Model ${requested} cannot be priced by this gateway, so it cannot be served.`);
    }
    return { requested, model, tier: undefined };
  }

  const matches = catalogue.byBareName.get(bareName(requested)) ?? [];
  if (matches.length === 0) throw invalidRequest("model_unknown", `No known model is named ${requested}. See GET /v1/models?all=1.`);
  if (matches.length > 1) {
    throw invalidRequest("model_ambiguous", `${requested} names several models: ${matches.map((model) => model.id).join(", ")}. Use the full vendor/model id.`);
  }
  return { requested, model: matches[0]!, tier: undefined };
}

function byId(catalogue: CatalogueSnapshot, id: string, requested: string): ModelEntry {
  const model = catalogue.byId.get(id);
  if (!model) throw invalidRequest("no_eligible_model", `${requested} maps to ${id}, which the catalogue does not contain.`);
  return model;
}
