// Turns the `model` a caller sent into an intent alias (a tier to choose in)
// or a concrete catalogue model (docs/routing.md, "Resolution"). Choosing
// within a tier is select-candidates.ts.
import type { CatalogueSnapshot, ModelEntry } from "../catalogue/catalogue-snapshot";
import { bareName } from "../catalogue/catalogue-snapshot";
import { invalidRequest } from "../errors";
import { echo } from "@gateway/proto";

export const TIERS = ["economy", "balanced", "quality"] as const;
export type Tier = (typeof TIERS)[number];

export type Resolution = { kind: "alias"; requested: string; tier: Tier } | { kind: "model"; requested: string; model: ModelEntry };

export function isTier(value: string): value is Tier {
  return (TIERS as readonly string[]).includes(value);
}

export function resolveModel(
  requested: unknown,
  catalogue: CatalogueSnapshot,
  context: { endpoint: "chat" | "embeddings"; serviceTier: Tier | undefined },
): Resolution {
  if (typeof requested !== "string" || requested.trim() === "")
    throw invalidRequest("model_required", "The request must name a model.", "model");

  if (requested === "auto" && context.endpoint === "embeddings") {
    const model = catalogue.byId.get(catalogue.defaults.embeddings);
    if (!model)
      throw invalidRequest("no_eligible_model", `auto maps to ${catalogue.defaults.embeddings}, which the catalogue does not contain.`);
    return { kind: "model", requested, model };
  }
  if (requested === "auto" || requested.startsWith("auto:")) {
    const tier = requested === "auto" ? (context.serviceTier ?? "balanced") : requested.slice("auto:".length);
    if (!isTier(tier))
      throw invalidRequest("model_unknown", `Unknown tier "${echo(tier)}": use auto:economy, auto:balanced or auto:quality.`, "model");
    return { kind: "alias", requested, tier };
  }
  return { kind: "model", requested, model: resolveConcrete(requested, catalogue, "model") };
}

/** A concrete `vendor/model` id or a bare name, to a catalogue model; `param` is the request field it came from, if any. */
export function resolveConcrete(requested: string, catalogue: CatalogueSnapshot, param?: string): ModelEntry {
  if (requested.includes("/")) {
    const model = catalogue.byId.get(requested);
    // Callable whether or not listed, but only when something can price it.
    if (!model)
      throw invalidRequest("model_unknown", `Model ${echo(requested)} cannot be priced by this gateway, so it cannot be served.`, param);
    return model;
  }
  const matches = catalogue.byBareName.get(bareName(requested)) ?? [];
  if (matches.length === 0)
    throw invalidRequest("model_unknown", `No known model is named ${echo(requested)}. See GET /v1/models?all=1.`, param);
  if (matches.length > 1) {
    throw invalidRequest(
      "model_ambiguous",
      `${echo(requested)} names several models: ${matches.map((model) => model.id).join(", ")}. Use the full vendor/model id.`,
      param,
    );
  }
  return matches[0]!;
}
