// Which model and access path serve a request, and which others could
// (for fallbacks), with the reasons some were left out (docs/routing.md).
import { canPrice } from "../billing/pricing";
import type { AccessPath, CatalogueSnapshot, ModelEntry } from "../catalogue/catalogue-snapshot";
import { ECHO_LIMIT, echo, echoList, LISTED_LIMIT } from "@gateway/proto/echo";
import { GatewayError, invalidRequest } from "../errors";
import { type AffinityTrace, applyPin } from "./affinity";
import type { Pin } from "./affinity-pins";
import { PathHealth } from "./path-health";
import { asksForImages, requestNeeds } from "./request-needs";
import { resolveConcrete, resolveModel, type Tier } from "./resolve-model";
import { allowedBy, namedPaths, notNamed, orderPaths, selectCandidates, tierPool, type Candidate } from "./select-candidates";
import type { ServiceBlock } from "./service-block";

export interface Route {
  requested: string;
  tier: Tier | null;
  /** The first candidate: the model and path tried first. */
  model: ModelEntry;
  path: AccessPath;
  /** In the order they would be tried; only the first with `route: "pinned"`. */
  candidates: Candidate[];
  excluded: { model: string; why: string }[];
  /** What became of the conversation's pin; absent for a request that is no turn of a conversation. */
  affinity?: AffinityTrace;
}

/** A turn of a conversation: its live pin, if it has one. */
export interface Turn {
  pin: Pin | undefined;
}

type Endpoint = "chat" | "embeddings";

/** What routing reads besides the catalogue: the providers this data plane can reach, and their paths' recent health. */
export interface RoutingContext {
  providers: ReadonlyMap<string, { adapterFor(upstreamModel: string): { supports(endpoint: Endpoint): boolean } }>;
  health: PathHealth;
  /** The data plane's `<NAME>_API_KEY` variables that have keys (a pool of them): a path naming another is never called. */
  credentials: { has(variable: string): boolean };
}

const pathHealth = (context: RoutingContext) => (path: AccessPath) =>
  context.health.view(PathHealth.key(path.provider, path.upstreamModel));

/**
 * A path this data plane can call: its provider is configured and offers the endpoint, and the key it
 * names is set (an upstream called without one only refuses: a wasted attempt, or a 403 for the caller).
 */
/** Paths on a provider this data plane has whose key is not set. */
export const unkeyed = (context: Pick<RoutingContext, "providers" | "credentials">, paths: readonly AccessPath[]): AccessPath[] =>
  paths.filter(
    (path) => path.credentialsRef !== "" && context.providers.has(path.provider) && !context.credentials.has(path.credentialsRef),
  );

const reachable = (context: RoutingContext, path: AccessPath, endpoint: Endpoint) =>
  context.providers.get(path.provider)?.adapterFor(path.upstreamModel).supports(endpoint) === true &&
  (path.credentialsRef === "" || context.credentials.has(path.credentialsRef));

/**
 * What a tenant is told when a missing key is why a model's paths cannot be called (on a provider this
 * data plane has). Never the variable: that is the operator's, logged when the catalogue arrives (unsetCredentials).
 */
export const NO_CONFIGURED_PATH = "this model has no configured access path";
const missingKeys = (context: RoutingContext, model: ModelEntry): string | undefined =>
  unkeyed(context, model.paths).length > 0 ? NO_CONFIGURED_PATH : undefined;

/** The `*_API_KEY` variables the catalogue's paths name, on providers this data plane has, that are not set here. */
export function unsetCredentials(context: Pick<RoutingContext, "providers" | "credentials">, catalogue: CatalogueSnapshot): string[] {
  return [...new Set(catalogue.models.flatMap((model) => unkeyed(context, model.paths).map((path) => path.credentialsRef)))].sort();
}

/** A concrete model's paths this gateway can reach and price, in the order to try them (with `service.paths`, only those it names, in its order). */
function usablePaths(
  context: RoutingContext,
  model: ModelEntry,
  endpoint: Endpoint,
  serviceTier: unknown,
  named: string[] | undefined,
): AccessPath[] {
  const priced = (candidate: AccessPath) => reachable(context, candidate, endpoint) && canPrice(candidate.price, endpoint);
  const paths = model.paths.filter((candidate) => priced(candidate) && canPrice(candidate.price, endpoint, serviceTier));
  if (paths.length === 0 && model.paths.some(priced))
    throw invalidRequest(
      "no_eligible_model",
      `Model ${model.id} has no access path whose price covers service_tier ${echo(String(serviceTier))}.`,
    );
  if (paths.length === 0) {
    const unconfigured = missingKeys(context, model);
    throw invalidRequest(
      "model_unknown",
      unconfigured ? `Model ${model.id}: ${unconfigured}.` : `Model ${model.id} has no access path this gateway can reach and price.`,
    );
  }
  if (!named) return orderPaths(paths, pathHealth(context));
  const chosen = namedPaths(paths, named);
  if (chosen.length === 0) throw invalidRequest("no_eligible_model", `Model ${model.id} has ${notNamed(paths)}.`);
  return chosen;
}

/**
 * An explicit `service.route` list, resolved; unknown entries are excluded (their id as an error
 * message would quote it), not fatal. Two entries naming one model (a bare name and its full id) make
 * one candidate.
 */
function routeListPool(list: string[], catalogue: CatalogueSnapshot): { pool: ModelEntry[]; excluded: Route["excluded"] } {
  const pool = new Set<ModelEntry>();
  const excluded: Route["excluded"] = [];
  for (const id of list) {
    try {
      pool.add(resolveConcrete(id, catalogue));
    } catch (error) {
      excluded.push({ model: echo(id), why: error instanceof GatewayError ? String(error.code) : "unknown" });
    }
  }
  return { pool: [...pool], excluded };
}

/**
 * @param bodyBytes the request body's size as received (Content-Length), used to estimate its
 * tokens for the context filter; absent, the body is measured again.
 * @param turn set for a turn of a conversation: its pin goes first while it can serve (affinity.ts).
 */
export function routeRequest(
  context: RoutingContext,
  catalogue: CatalogueSnapshot,
  body: Record<string, unknown>,
  service: ServiceBlock | undefined,
  endpoint: Endpoint,
  bodyBytes?: number,
  turn?: Turn,
): Route {
  const resolution = resolveModel(body.model, catalogue, { endpoint, serviceTier: service?.tier });
  const routeList = Array.isArray(service?.route) ? service.route : undefined;

  if (endpoint === "chat" && (resolution.kind === "alias" || routeList)) {
    const tier = resolution.kind === "alias" ? resolution.tier : null;
    const listed = routeList ? routeListPool(routeList, catalogue) : { pool: tierPool(catalogue, tier!), excluded: [] };
    const selection = selectCandidates({
      pool: listed.pool,
      keepOrder: routeList !== undefined,
      needs: requestNeeds(body, bodyBytes || Buffer.byteLength(JSON.stringify(body))),
      purpose: service?.purpose,
      allow: service?.allow,
      paths: service?.paths,
      reachable: (path) => reachable(context, path, "chat"),
      missingKeys: (model) => missingKeys(context, model),
      health: pathHealth(context),
    });
    const excluded = [...listed.excluded, ...selection.excluded];
    const pinned = turn && applyPin(selection.candidates, excluded, turn.pin, pathHealth(context), service, false);
    const candidates = pinned?.candidates ?? selection.candidates;
    const first = candidates[0];
    if (!first) {
      // Each entry: an id (a route entry's already cut to ECHO_LIMIT) and a reason the gateway wrote.
      const reasons = echoList(
        excluded.map((entry) => `${entry.model}: ${entry.why}`),
        LISTED_LIMIT,
        "; ",
        2 * ECHO_LIMIT,
      );
      throw invalidRequest("no_eligible_model", `No model can serve this request${reasons ? ` (${reasons})` : ""}.`);
    }
    return {
      requested: resolution.requested,
      tier,
      model: first.model,
      path: first.path,
      candidates: service?.route === "pinned" ? [first] : candidates,
      excluded,
      ...(pinned ? { affinity: pinned.affinity } : {}),
    };
  }

  if (resolution.kind !== "model") throw invalidRequest("model_unknown", "Intent aliases other than auto are for chat completions.");
  const model = resolution.model;
  if (endpoint === "embeddings" && !model.embeddings)
    throw invalidRequest("model_unknown", `Model ${model.id} does not produce embeddings.`);
  if (endpoint === "chat" && model.embeddings) throw invalidRequest("model_unknown", `Model ${model.id} is an embeddings model.`);
  // A concrete model is honoured as given, except for image output: a model that cannot make images would silently answer text.
  if (endpoint === "chat" && !model.outputModalities.includes("image") && asksForImages(body)) {
    throw invalidRequest("no_eligible_model", `Model ${model.id} does not produce images (modalities asks for image output).`);
  }
  if (service?.allow && !allowedBy(service.allow, model.id)) {
    throw invalidRequest("no_eligible_model", `Model ${model.id} is not allowed by service.allow.`);
  }
  const paths = usablePaths(context, model, endpoint, body.service_tier, service?.paths);
  const only: Candidate[] = [{ model, path: paths[0]!, paths }];
  // A model asked for is honoured: the pin chooses its path.
  const pinned = turn && applyPin(only, [], turn.pin, pathHealth(context), service, true);
  const candidate = pinned?.candidates[0] ?? only[0]!;
  return {
    requested: resolution.requested,
    tier: null,
    model,
    path: candidate.path,
    candidates: [candidate],
    excluded: [],
    ...(pinned ? { affinity: pinned.affinity } : {}),
  };
}
