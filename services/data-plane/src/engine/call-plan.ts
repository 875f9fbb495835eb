// Everything decided before a request goes upstream: the models and access
// paths that may serve it, in the order they are tried, and the hold for the
// worst-case cost. Which target is sent, and with what body, is decided when
// it is chosen (choose-target.ts).
import type { KeyIdentity } from "../auth/key-cache";
import { cappedBound, type UsageBound, usageBound, worstCaseNano } from "../billing/worst-case";
import type { AccessPath, CatalogueSnapshot, ModelEntry } from "../catalogue/catalogue-snapshot";
import type { ClientDialect, ClientRequest } from "../dialects/client-dialect";
import type { KeyPool } from "../providers/key-pool/key-pool";
import type { NativeCodec, ProviderAdapter, RequestContext, UpstreamCall } from "../providers/provider-adapter";
import type { UpstreamProvider } from "../providers/upstream-provider";
import { PathHealth } from "../routing/path-health";
import { type RoutingContext, routeRequest, type Turn, unkeyed } from "../routing/route-request";
import type { RouteTrace } from "../routing/route-trace";

/** The shortest answer worth giving when the balance cannot cover the model's maximum output. */
export const MIN_ANSWER_TOKENS = 16;

/** What a target's hold is computed from: its upstream call as built for the request, and what that may cost. */
export interface TargetSizing {
  upstream: UpstreamCall;
  /** The worst-case cost. */
  holdNano: bigint;
  /** 0, or the smallest hold worth answering with (the caller set no max tokens, so the answer may be capped). */
  minHoldNano: bigint;
  /** The most the call can be billed for, which the hold prices (billing/worst-case.ts). */
  bound: UsageBound;
}

/** One model through one access path. */
export class CallTarget {
  private sizing: TargetSizing | undefined;
  /** The access path's key in the path health (circuit and latency). */
  readonly healthKey: string;
  /** The provider's adapter for this path's upstream model. */
  readonly adapter: ProviderAdapter;

  constructor(
    readonly model: ModelEntry,
    readonly path: AccessPath,
    readonly provider: UpstreamProvider,
    /** Built with the first key of its pool; each attempt sends the key it takes (`keyed`). */
    readonly context: RequestContext,
    /** The keys of the path's `credentials`; undefined for a path that names none (a cloud's). */
    readonly pool: KeyPool | undefined,
    /** Set when the client's dialect is this upstream's own: its body passes through and its answer is relayed as written. */
    readonly native: NativeCodec | undefined,
    private readonly request: ClientRequest,
    private readonly cappable: boolean,
  ) {
    this.healthKey = PathHealth.key(path.provider, path.upstreamModel);
    this.adapter = provider.adapterFor(path.upstreamModel);
  }

  /** The upstream call for the request, its answer capped to `maxTokens` when given. */
  build(maxTokens?: number): UpstreamCall {
    const { body, original, operation } = this.request;
    if (this.native) return this.native.call(original, this.context, maxTokens);
    return this.adapter.request(operation, maxTokens === undefined ? body : { ...body, max_tokens: maxTokens }, this.context);
  }

  /**
   * `upstream` sent with `apiKey` instead of the key it was built with: the same call from a pool of one
   * (built with its key) or when the adapter takes no key.
   */
  keyed(upstream: UpstreamCall, apiKey: string): UpstreamCall {
    if (this.pool?.single) return upstream;
    return this.adapter.withKey?.(upstream, apiKey) ?? upstream;
  }

  /** Built once, when first needed: for the hold (the first targets) or when chosen (the others). */
  get sized(): TargetSizing {
    this.sizing ??= this.size();
    return this.sizing;
  }

  private size(): TargetSizing {
    const { body, original, operation, nativeOnly } = this.request;
    const upstream = this.build();
    const bound = usageBound({
      endpoint: operation,
      protocol: this.adapter.protocol,
      upstreamModel: this.path.upstreamModel,
      model: this.model,
      shared: body,
      original: this.native ? original : undefined,
      forwardedBody: upstream.body,
      nativeOnly: nativeOnly !== undefined,
    });
    const { price } = this.path;
    const holdNano = worstCaseNano(price, bound);
    const minHoldNano = this.cappable ? worstCaseNano(price, cappedBound(bound, MIN_ANSWER_TOKENS)) : 0n;
    return { upstream, holdNano, minHoldNano: minHoldNano < holdNano ? minHoldNano : 0n, bound };
  }
}

export interface CallPlan {
  requestId: string;
  dialect: ClientDialect;
  request: ClientRequest;
  identity: KeyIdentity;
  /** Every model and access path that may serve the call, in the order they are tried: each candidate's paths, then the next candidate. */
  targets: CallTarget[];
  /** The hold asked for: the worst case of the priciest target that can be sent to, so a fallback is covered too. */
  holdNano: bigint;
  /** The smallest hold accepted: what the first target needs (0 = the full hold). */
  minHoldNano: bigint;
  trace: RouteTrace;
  /** The provider account (key group) of a conversation's pin, when its pinned target goes first: that target prefers its keys. */
  pinnedGroup?: string;
}

export interface PlanContext extends TargetContext {
  maxAttempts: number;
}

export interface TargetContext extends RoutingContext {
  providers: ReadonlyMap<string, UpstreamProvider>;
  /** Each `<NAME>_API_KEY` variable's pool of keys. */
  credentials: ReadonlyMap<string, KeyPool>;
}

/**
 * The request routed, and its targets in the order they are tried: each candidate's paths, then the
 * next candidate. A request only the client's own dialect can carry keeps the targets that speak it,
 * and is refused with its own 400 when none does. Used by calls and by count_tokens alike.
 */
export function planTargets(
  context: TargetContext,
  catalogue: CatalogueSnapshot,
  dialectName: string,
  request: ClientRequest,
  bodyBytes?: number,
  turn?: Turn,
): { route: ReturnType<typeof routeRequest>; targets: CallTarget[] } {
  const { body, operation, service } = request;
  const route = routeRequest(context, catalogue, body, service, operation, bodyBytes, turn);
  // Without a caller's max tokens, an answer may be capped to what the balance covers.
  const cappable =
    operation === "chat" &&
    body.max_tokens === undefined &&
    body.max_completion_tokens === undefined &&
    (body.n === undefined || body.n === 1);
  const allTargets = route.candidates.flatMap((candidate) =>
    candidate.paths.map((path) => {
      const provider = context.providers.get(path.provider)!;
      const pool = path.credentialsRef ? context.credentials.get(path.credentialsRef) : undefined;
      const requestContext: RequestContext = {
        upstreamModel: path.upstreamModel,
        apiKey: pool?.firstKey,
        maxOutputTokens: candidate.model.maxOutputTokens,
        contextLength: candidate.model.contextLength,
        clientHeaders: request.forwardHeaders,
      };
      const native = provider.adapterFor(path.upstreamModel).native(dialectName);
      return new CallTarget(candidate.model, path, provider, requestContext, pool, native, request, cappable);
    }),
  );
  const targets = request.nativeOnly ? allTargets.filter((target) => target.native !== undefined) : allTargets;
  if (targets.length === 0) throw request.nativeOnly!;
  return { route, targets };
}

/**
 * The candidates' paths routing left out because the key they name is not set: in the trace (the tenant's to read) as skipped, the variable
 * unnamed. With `service.paths`, only those it names: the others were not asked for.
 */
function unkeyedPaths(
  context: TargetContext,
  candidates: ReturnType<typeof routeRequest>["candidates"],
  named: readonly string[] | undefined,
): RouteTrace["attempts"] {
  const asked = named && new Set(named.map((name) => name.toLowerCase()));
  return candidates.flatMap(({ model }) =>
    unkeyed(context, model.paths)
      .filter((path) => !asked || asked.has(path.provider))
      .map((path) => ({
        model: model.id,
        path: path.provider,
        outcome: "skipped: access path not configured",
        ms: 0,
      })),
  );
}

/**
 * @param bodyBytes the body's size as received (Content-Length), for the context filter; absent, it is measured.
 * @param turn set for a turn of a conversation, with its pin (affinity).
 */
export function planCall(
  context: PlanContext,
  catalogue: CatalogueSnapshot,
  requestId: string,
  identity: KeyIdentity,
  dialect: ClientDialect,
  request: ClientRequest,
  bodyBytes?: number,
  turn?: Turn,
): CallPlan {
  const { service } = request;
  const { route, targets } = planTargets(context, catalogue, dialect.name, request, bodyBytes, turn);
  const first = targets[0]!;
  // Only the first maxAttempts targets can be sent to without a skip; a later one the hold does not cover is skipped.
  let holdNano = 0n;
  for (const target of targets.slice(0, context.maxAttempts)) if (target.sized.holdNano > holdNano) holdNano = target.sized.holdNano;
  const firstNeeds = first.sized.minHoldNano > 0n ? first.sized.minHoldNano : first.sized.holdNano;
  const pinnedGroup = route.affinity?.state === "kept" ? turn?.pin?.group : undefined;
  return {
    requestId,
    dialect,
    request,
    identity,
    targets,
    holdNano,
    minHoldNano: firstNeeds < holdNano ? firstNeeds : 0n,
    trace: {
      requested: route.requested,
      resolved: first.model.id,
      tier: route.tier,
      purpose: service?.purpose ?? null,
      candidates: request.nativeOnly
        ? [...new Set(targets.map((target) => target.model.id))]
        : route.candidates.map((candidate) => candidate.model.id),
      excluded: route.excluded,
      attempts: unkeyedPaths(context, route.candidates, service?.paths),
      path: first.path.provider,
      ...(route.affinity ? { affinity: route.affinity } : {}),
    },
    ...(pinnedGroup ? { pinnedGroup } : {}),
  };
}
