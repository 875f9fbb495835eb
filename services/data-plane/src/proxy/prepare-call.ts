// Everything decided before a request goes upstream: the models and access
// paths that may serve it (in the order they are tried), each one's upstream
// body, and the hold for the worst-case cost.
import type { KeyIdentity } from "../auth/key-cache";
import { chatImageUpperBound, chatInputUpperBound, chatOutputUpperBound } from "../billing/hold-estimate";
import { affordableOutputTokens, costNano } from "../billing/pricing";
import type { AccessPath, ModelEntry } from "../catalogue/catalogue-snapshot";
import { controlPlaneUnavailable, invalidRequest } from "../errors";
import type { Gateway } from "../gateway";
import type { RequestContext, ResponseContext, UpstreamCall } from "../providers/provider-adapter";
import type { UpstreamProvider } from "../providers/upstream-provider";
import { routeRequest } from "../routing/route-request";
import type { RouteTrace } from "../routing/route-trace";
import { parseServiceBlock, type ServiceBlock } from "../routing/service-block";

export type Endpoint = "chat" | "embeddings";

/** One model through one access path: what a single upstream attempt sends, and what it may cost. */
export interface CallTarget {
  model: ModelEntry;
  path: AccessPath;
  provider: UpstreamProvider;
  /** What the adapter builds the call from. */
  context: RequestContext;
  /** The exact call sent upstream, built by the provider's adapter (with max_tokens added when the hold caps the answer). */
  upstream: UpstreamCall;
  /** This target's worst-case cost. */
  holdNano: bigint;
  /** 0, or the smallest hold worth answering with on this target (the caller set no max tokens, so the answer may be capped). */
  minHoldNano: bigint;
  /** The worst-case input tokens its hold was computed with. */
  inputUpperTokens: number;
}

export interface PreparedCall {
  requestId: string;
  endpoint: Endpoint;
  identity: KeyIdentity;
  body: Record<string, unknown>;
  service: ServiceBlock | undefined;
  /**
   * Every model and access path that may serve the call, in the order they are
   * tried: each candidate model's paths, then the next candidate (docs/resilience.md).
   */
  targets: CallTarget[];
  /** The target being tried, and once answered the one that answered (billed at its price). */
  target: CallTarget;
  /** The hold asked for: the worst case of the priciest target that can be tried, so a fallback is covered too. */
  holdNano: bigint;
  /** The smallest hold accepted: what the first target needs (0 = the full hold). */
  minHoldNano: bigint;
  /** What the control plane actually held; set by the reserve. */
  reservedNano?: bigint;
  /** performance.now() when the request's body had been read (set by the route), for the gateway-overhead metric. */
  receivedAt?: number;
  /** Set once the hold was settled or released (call-money.ts): nothing more may touch it. */
  holdClosed?: boolean;
  trace: RouteTrace;
}

/** The shortest answer worth giving when the balance cannot cover the model's maximum output. */
export const MIN_ANSWER_TOKENS = 16;
/** Bytes a `"max_tokens":N` field adds to the forwarded body, counted into the input bound of a capped answer. */
const CAP_FIELD_BYTES = 32;

export function requireObjectBody(body: unknown): Record<string, unknown> {
  if (typeof body !== "object" || body === null || Array.isArray(body))
    throw invalidRequest("invalid_body", "The request body must be a JSON object.");
  return body as Record<string, unknown>;
}

export function prepareCall(
  gateway: Gateway,
  requestId: string,
  identity: KeyIdentity,
  rawBody: unknown,
  endpoint: Endpoint,
  bodyBytes?: number,
): PreparedCall {
  const body = requireObjectBody(rawBody);
  const catalogue = gateway.catalogue.current;
  if (!catalogue) throw controlPlaneUnavailable();
  const service = endpoint === "chat" ? parseServiceBlock(body.service) : undefined;
  if (endpoint === "chat" && (!Array.isArray(body.messages) || body.messages.length === 0)) {
    throw invalidRequest("invalid_body", "messages must be a non-empty array.");
  }
  if (endpoint === "embeddings" && body.input === undefined) throw invalidRequest("invalid_body", "input is required.");

  const route = routeRequest(gateway, catalogue, body, service, endpoint, bodyBytes);
  // decisions.md "Money": without a caller's max tokens, an answer may be capped to what the balance covers.
  const cappable =
    endpoint === "chat" &&
    body.max_tokens === undefined &&
    body.max_completion_tokens === undefined &&
    (body.n === undefined || body.n === 1);
  const targets = route.candidates.flatMap((candidate) =>
    candidate.paths.map((path) => buildTarget(gateway, body, endpoint, candidate.model, path, cappable)),
  );
  const first = targets[0]!;
  // Only the first UPSTREAM_MAX_ATTEMPTS targets can ever be sent to; a later one the hold does not cover is skipped.
  const reachable = targets.slice(0, gateway.config.upstream.maxAttempts);
  const holdNano = reachable.reduce((max, target) => (target.holdNano > max ? target.holdNano : max), 0n);
  const firstNeeds = first.minHoldNano > 0n ? first.minHoldNano : first.holdNano;

  return {
    requestId,
    endpoint,
    identity,
    body,
    service,
    targets,
    target: first,
    holdNano,
    minHoldNano: firstNeeds < holdNano ? firstNeeds : 0n,
    trace: {
      requested: route.requested,
      resolved: first.model.id,
      tier: route.tier,
      purpose: service?.purpose ?? null,
      candidates: route.candidates.map((candidate) => candidate.model.id),
      excluded: route.excluded,
      attempts: [],
      path: first.path.provider,
    },
  };
}

function buildTarget(
  gateway: Gateway,
  body: Record<string, unknown>,
  endpoint: Endpoint,
  model: ModelEntry,
  path: AccessPath,
  cappable: boolean,
): CallTarget {
  const provider = gateway.providers.get(path.provider)!;
  const context = requestContext(gateway, model, path);
  const upstream = provider.adapter.request(endpoint, body, context);
  const payloadBytes = Buffer.byteLength(upstream.body);
  const inputUpperTokens = endpoint === "chat" ? chatInputUpperBound(payloadBytes, body.messages) : payloadBytes;
  const outputUpperTokens = endpoint === "chat" ? chatOutputUpperBound(body, model.maxOutputTokens, model.contextLength) : 0;
  const images = endpoint === "chat" ? chatImageUpperBound(body) : 0;
  const holdNano = costNano(path.price, { inputTokens: inputUpperTokens, outputTokens: outputUpperTokens, images });
  const minHoldNano = cappable
    ? costNano(path.price, { inputTokens: inputUpperTokens + CAP_FIELD_BYTES, outputTokens: MIN_ANSWER_TOKENS, images })
    : 0n;
  return { model, path, provider, context, upstream, holdNano, minHoldNano: minHoldNano < holdNano ? minHoldNano : 0n, inputUpperTokens };
}

function requestContext(gateway: Gateway, model: ModelEntry, path: AccessPath): RequestContext {
  return {
    upstreamModel: path.upstreamModel,
    apiKey: path.credentialsRef ? gateway.config.credentials.get(path.credentialsRef) : undefined,
    maxOutputTokens: model.maxOutputTokens,
    contextLength: model.contextLength,
  };
}

/**
 * Makes `target` the one tried next, within what was reserved. A target whose
 * worst case the hold covers goes as it is; otherwise, when the caller accepted
 * a capped answer (no max tokens), its answer is capped to the hold (forwarded
 * as max_tokens and said in the routing trace). Returns false when the hold
 * cannot cover even a capped answer on it: the target is skipped.
 */
export function useTarget(call: PreparedCall, target: CallTarget): boolean {
  const reserved = call.reservedNano ?? call.holdNano;
  call.target = target;
  call.trace.resolved = target.model.id;
  call.trace.path = target.path.provider;
  delete call.trace.max_tokens_capped;
  if (reserved >= target.holdNano) return true;
  if (target.minHoldNano === 0n || reserved < target.minHoldNano) return false;
  const imagesNano = BigInt(chatImageUpperBound(call.body)) * (target.path.price.imageNano ?? 0n);
  const maxTokens = affordableOutputTokens(target.path.price, target.inputUpperTokens + CAP_FIELD_BYTES, reserved - imagesNano);
  target.upstream = target.provider.adapter.request("chat", { ...call.body, max_tokens: maxTokens }, target.context);
  call.trace.max_tokens_capped = maxTokens;
  return true;
}

/** Response headers every chat answer carries: the model that answered and the routing line. */
export function serviceHeaders(call: PreparedCall, reason: string): Record<string, string> {
  return { "x-service-model": call.target.model.id, "x-service-reason": reason };
}

/** What an adapter may put into an answer it writes itself: an id, the time, the upstream model. */
export function responseContext(call: PreparedCall): ResponseContext {
  return { id: `chatcmpl-${call.requestId}`, created: Math.floor(Date.now() / 1000), model: call.target.path.upstreamModel };
}
