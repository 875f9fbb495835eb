// Everything decided before a request goes upstream: which model and access
// path, the upstream body, and the hold for the worst-case cost.
import type { KeyIdentity } from "../auth/key-cache";
import { chatInputUpperBound, chatOutputUpperBound } from "../billing/hold-estimate";
import { affordableOutputTokens, costNano } from "../billing/pricing";
import type { AccessPath, ModelEntry } from "../catalogue/catalogue-snapshot";
import { controlPlaneUnavailable, invalidRequest } from "../errors";
import type { Gateway } from "../gateway";
import type { OpenAiCompatibleProvider } from "../providers/openai-compatible/openai-compatible-provider";
import { routeRequest } from "../routing/route-request";
import type { RouteTrace } from "../routing/route-trace";
import type { Candidate } from "../routing/select-candidates";
import { parseServiceBlock, type ServiceBlock } from "../routing/service-block";

export type Endpoint = "chat" | "embeddings";

export interface PreparedCall {
  requestId: string;
  endpoint: Endpoint;
  identity: KeyIdentity;
  body: Record<string, unknown>;
  service: ServiceBlock | undefined;
  /** The model and access path this call goes to (the first candidate). */
  model: ModelEntry;
  path: AccessPath;
  /** Every model that could serve it, in order (the first is `model`), for fallbacks. */
  candidates: Candidate[];
  provider: OpenAiCompatibleProvider;
  apiKey: string | undefined;
  /** The exact body sent upstream. */
  payload: string;
  holdNano: bigint;
  /** 0, or the smallest hold worth answering with: the caller set no max tokens, so a smaller answer may be capped to the balance. */
  minHoldNano: bigint;
  /** The worst-case input tokens the hold was computed with. */
  inputUpperTokens: number;
  trace: RouteTrace;
}

/** The shortest answer worth giving when the balance cannot cover the model's maximum output. */
export const MIN_ANSWER_TOKENS = 16;
/** Bytes a `"max_tokens":N` field adds to the forwarded body, counted into the input bound of a capped answer. */
const CAP_FIELD_BYTES = 32;

export function requireObjectBody(body: unknown): Record<string, unknown> {
  if (typeof body !== "object" || body === null || Array.isArray(body)) throw invalidRequest("invalid_body", "The request body must be a JSON object.");
  return body as Record<string, unknown>;
}

export function prepareCall(gateway: Gateway, requestId: string, identity: KeyIdentity, rawBody: unknown, endpoint: Endpoint, bodyBytes?: number): PreparedCall {
  const body = requireObjectBody(rawBody);
  const catalogue = gateway.catalogue.current;
  if (!catalogue) throw controlPlaneUnavailable();
  const service = endpoint === "chat" ? parseServiceBlock(body.service) : undefined;
  if (endpoint === "chat" && (!Array.isArray(body.messages) || body.messages.length === 0)) {
    throw invalidRequest("invalid_body", "messages must be a non-empty array.");
  }
  if (endpoint === "embeddings" && body.input === undefined) throw invalidRequest("invalid_body", "input is required.");

  const route = routeRequest(gateway, catalogue, body, service, endpoint, bodyBytes);
  const { model, path } = route;
  const provider = gateway.providers.get(path.provider)!;
  const payload = endpoint === "chat" ? provider.chatBody(body, path.upstreamModel) : provider.embeddingsBody(body, path.upstreamModel);
  const payloadBytes = Buffer.byteLength(payload);
  const inputUpperTokens = endpoint === "chat" ? chatInputUpperBound(payloadBytes, body.messages) : payloadBytes;
  const holdNano =
    endpoint === "chat"
      ? costNano(path.price, { inputTokens: inputUpperTokens, outputTokens: chatOutputUpperBound(body, model.maxOutputTokens, model.contextLength) })
      : costNano(path.price, { inputTokens: inputUpperTokens, outputTokens: 0 });
  // decisions.md "Money": without a caller's max tokens, an answer may be capped to what the balance covers.
  const cappable = endpoint === "chat" && body.max_tokens === undefined && body.max_completion_tokens === undefined && (body.n === undefined || body.n === 1);
  const minHoldNano = cappable ? costNano(path.price, { inputTokens: inputUpperTokens + CAP_FIELD_BYTES, outputTokens: MIN_ANSWER_TOKENS }) : 0n;

  return {
    requestId,
    endpoint,
    identity,
    body,
    service,
    model,
    path,
    candidates: route.candidates,
    provider,
    apiKey: path.credentialsRef ? gateway.config.credentials.get(path.credentialsRef) : undefined,
    payload,
    holdNano,
    minHoldNano: minHoldNano < holdNano ? minHoldNano : 0n,
    inputUpperTokens,
    trace: {
      requested: route.requested,
      resolved: model.id,
      tier: route.tier,
      purpose: service?.purpose ?? null,
      candidates: route.candidates.map((candidate) => candidate.model.id),
      excluded: route.excluded,
      attempts: [],
      path: path.provider,
    },
  };
}

/**
 * The hold came back smaller than the worst case (the caller accepted that by
 * setting no max tokens): cap the answer to what the hold covers, forward that
 * cap, and say so in the routing trace.
 */
export function capAnswerToHold(call: PreparedCall, reservedNano: bigint): void {
  const maxTokens = affordableOutputTokens(call.path.price, call.inputUpperTokens + CAP_FIELD_BYTES, reservedNano);
  call.payload = call.provider.chatBody({ ...call.body, max_tokens: maxTokens }, call.path.upstreamModel);
  call.trace.max_tokens_capped = maxTokens;
}
