// Candidate selection for `auto`, `auto:<tier>` and `service.route` lists
// (docs/routing.md). Pure: the catalogue, the request's needs, the service
// block, which providers this data plane can reach, and recent path health in;
// an ordered candidate list and the exclusions (with why) out.
import { canPrice, PRICED_SERVICE_TIERS } from "../billing/pricing";
import type { AccessPath, CatalogueSnapshot, ModelEntry } from "../catalogue/catalogue-snapshot";
import { PathHealth, type PathHealthView } from "./path-health";
import type { RequestNeeds } from "./request-needs";

export interface Candidate {
  model: ModelEntry;
  /** The path tried first: `paths[0]`. */
  path: AccessPath;
  /** Every reachable, priced path of the model in the order they are tried (healthy ones first, then catalogue order). */
  paths: AccessPath[];
}

export interface Selection {
  candidates: Candidate[];
  excluded: { model: string; why: string }[];
}

export interface SelectionInput {
  /** Models to choose from, in the catalogue's (or the caller's) order. */
  pool: ModelEntry[];
  /** true for a caller's explicit route list: its order is kept. */
  keepOrder: boolean;
  needs: RequestNeeds;
  purpose: string | undefined;
  allow: string[] | undefined;
  /** `service.paths`: only paths of these providers, in this order (absent: every path, healthy ones first). */
  paths?: string[];
  reachable: (path: AccessPath) => boolean;
  /** Why a model's paths cannot be called when a missing key is the reason, in words for the tenant (never the variable). */
  missingKeys?: (model: ModelEntry) => string | undefined;
  health: (path: AccessPath) => PathHealthView;
}

/** `vendor`, `vendor/*` or `vendor/model`, case-insensitive. */
export function allowedBy(patterns: string[], id: string): boolean {
  const lower = id.toLowerCase();
  const vendor = lower.slice(0, lower.indexOf("/"));
  return patterns.some((pattern) => {
    const wanted = pattern.toLowerCase();
    return wanted === lower || wanted === vendor || wanted === `${vendor}/*`;
  });
}

function whyNot(model: ModelEntry, needs: RequestNeeds): string | undefined {
  if (model.embeddings) return "an embeddings model";
  if (needs.tools && !model.tools) return "does not support tools";
  if (needs.jsonSchema && !model.jsonSchema) return "does not support json_schema output";
  if (needs.imageInput && !model.inputModalities.includes("image")) return "does not accept image input";
  if (needs.imageOutput && !model.outputModalities.includes("image")) return "does not produce images";
  if (needs.contextTokens > model.contextLength) return `context ${model.contextLength} tokens < ${needs.contextTokens} needed`;
  return undefined;
}

/** The per-million price of a path as one number to compare: input plus output. */
const blendedPrice = (path: AccessPath): bigint => (path.price.inputNanoPerM ?? 0n) + (path.price.outputNanoPerM ?? 0n);

export function selectCandidates(input: SelectionInput): Selection {
  const excluded: Selection["excluded"] = [];
  const eligible: (Candidate & { health: PathHealthView; position: number })[] = [];
  for (const [position, model] of input.pool.entries()) {
    // A tier's image generators answer `auto` only when images are asked for: a text request is
    // the text models' (tools, longer context), and never falls back to a generator.
    if (!input.keepOrder && !input.needs.imageOutput && model.outputModalities.includes("image")) continue;
    if (input.allow && !allowedBy(input.allow, model.id)) {
      excluded.push({ model: model.id, why: "not in service.allow" });
      continue;
    }
    const why = whyNot(model, input.needs);
    if (why) {
      excluded.push({ model: model.id, why });
      continue;
    }
    const usable = model.paths.filter((path) => input.reachable(path) && canPrice(path.price, "chat", input.needs.serviceTier));
    const paths = input.paths ? namedPaths(usable, input.paths) : orderPaths(usable, input.health);
    if (paths.length === 0 && usable.length > 0) {
      excluded.push({ model: model.id, why: notNamed(usable) });
      continue;
    }
    if (paths.length === 0) {
      const tier = input.needs.serviceTier;
      excluded.push({
        model: model.id,
        why:
          typeof tier === "string" && PRICED_SERVICE_TIERS.has(tier)
            ? `no reachable access path pricing service_tier ${tier}`
            : `no reachable access path with a price${input.missingKeys?.(model) ? ` (${input.missingKeys(model)})` : ""}`,
      });
      continue;
    }
    eligible.push({ model, path: paths[0]!, paths, health: input.health(paths[0]!), position });
  }

  if (!input.keepOrder) {
    const purposeRank = (model: ModelEntry) => (input.purpose && model.purposes.includes(input.purpose) ? 0 : 1);
    eligible.sort(
      (a, b) =>
        Number(b.health.healthy) - Number(a.health.healthy) ||
        purposeRank(a.model) - purposeRank(b.model) ||
        (blendedPrice(a.path) < blendedPrice(b.path) ? -1 : blendedPrice(a.path) > blendedPrice(b.path) ? 1 : 0) ||
        a.health.latencyMs - b.health.latencyMs ||
        a.position - b.position,
    );
  }
  return { candidates: eligible.map(({ model, path, paths }) => ({ model, path, paths })), excluded };
}

/**
 * `service.paths`: the paths of the providers it names, in its order (whatever their health: the
 * caller chose the order, as for a route list's models); two paths of one provider keep the catalogue's
 * order. A name no path has matches nothing.
 */
export function namedPaths(paths: readonly AccessPath[], names: readonly string[]): AccessPath[] {
  const rank = new Map(names.map((name, index) => [name.toLowerCase(), index]));
  return paths.filter((path) => rank.has(path.provider)).sort((a, b) => rank.get(a.provider)! - rank.get(b.provider)!);
}

/** Why a model with usable paths is left out by `service.paths`: the paths it has on this data plane, which the caller could name. */
export const notNamed = (usable: readonly AccessPath[]): string =>
  `no access path named in service.paths (its paths here: ${[...new Set(usable.map((path) => path.provider))].join(", ")})`;

/** A model's paths in the order to try them: the catalogue's preference, healthy paths before unhealthy ones. */
export function orderPaths(paths: AccessPath[], health: (path: AccessPath) => PathHealthView): AccessPath[] {
  const healthy = paths.filter((path) => health(path).healthy);
  return [...healthy, ...paths.filter((path) => !healthy.includes(path))];
}

/** The curated models of a tier, in catalogue order. */
export function tierPool(catalogue: CatalogueSnapshot, tier: string): ModelEntry[] {
  return catalogue.byTier.get(tier) ?? [];
}

export { PathHealth };
