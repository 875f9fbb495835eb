// Counting a request's input tokens without calling the model (Anthropic's
// POST /v1/messages/count_tokens). Routed and targeted like a call (call-plan.ts planTargets),
// then refused as the call would be for money (`admit`: no balance, budget or cap room; no hold is
// placed); when the first access path's upstream speaks the client's dialect and has a
// counting endpoint, the count is its answer, otherwise the gateway's own
// estimate from the translated upstream body. Never held, never billed, one
// attempt, no fallback.
import { countImageParts, estimateTokens, TOKENS_PER_IMAGE_ALLOWANCE } from "../billing/hold-estimate";
import type { CatalogueSnapshot } from "../catalogue/catalogue-snapshot";
import type { ClientRequest } from "../dialects/client-dialect";
import { upstreamFailure, upstreamUnexpectedStatus, upstreamUnreachable } from "../errors";
import type { UpstreamProvider } from "../providers/upstream-provider";
import { readTextWithin, SMALL_BODY_BYTES } from "../upstream/body-limit";
import { responseRetryAfter } from "../upstream/retry-after";
import { planTargets, type TargetContext } from "./call-plan";

export type CountContext = TargetContext;

export interface TokenCount {
  inputTokens: number;
  /** The gateway's estimate (the upstream has no counting endpoint for this dialect). */
  estimated: boolean;
  /** The catalogue model the count is for. */
  model: string;
}

/** Bounds a count, which the upstream answers at once: no stream, no long generation. */
const COUNT_TIMEOUT_MS = 30_000;

/**
 * @param admit throws the refusal the call itself would get for money (402, 429), before anything
 * is counted or sent upstream: the upstream count is made with the operator's key.
 */
export async function countTokens(
  context: CountContext,
  catalogue: CatalogueSnapshot,
  dialectName: string,
  request: ClientRequest,
  admit: () => Promise<void>,
): Promise<TokenCount> {
  const target = planTargets(context, catalogue, dialectName, request).targets[0]!;
  await admit();
  const built = target.native?.countTokens?.(request.original, target.context);
  if (!built) {
    const inputTokens = estimateInputTokens(request.body, (body) => target.adapter.request("chat", body, target.context).body);
    return { inputTokens, estimated: true, model: target.model.id };
  }
  // A count is a request on the account like any other: it takes a key of the pool, and counts in its minute.
  const key = target.pool?.take(0);
  const count = key ? target.keyed(built, key.apiKey) : built;
  let response: Awaited<ReturnType<UpstreamProvider["send"]>>;
  try {
    response = await target.provider.send(count, AbortSignal.timeout(COUNT_TIMEOUT_MS), { dispatched: false });
  } catch {
    key?.unanswered();
    throw upstreamUnreachable();
  }
  const body: unknown = await readTextWithin(response, SMALL_BODY_BYTES)
    .then((text) => JSON.parse(text) as unknown)
    .catch(() => undefined);
  if (response.statusCode === 401 || response.statusCode === 403) target.provider.credentialsRefused();
  key?.answeredWith(response.statusCode, responseRetryAfter(response.headers));
  const inputTokens = (body as { input_tokens?: unknown } | undefined)?.input_tokens;
  if (response.statusCode === 200 && typeof inputTokens === "number") return { inputTokens, estimated: false, model: target.model.id };
  // A 200 that is no count is the upstream's failure; a redirect is never relayed.
  if (response.statusCode === 200) throw upstreamFailure(502);
  if (response.statusCode < 400) throw upstreamUnexpectedStatus(response.statusCode);
  throw upstreamFailure(response.statusCode, {
    category: target.adapter.classifyError(body, response.headers),
    retryAfterSeconds: responseRetryAfter(response.headers),
  });
}

/**
 * The translated upstream body's UTF-8 bytes / 4, with each image counted as the hold's image
 * allowance instead of its encoded bytes (a 1 MB base64 image is a few thousand tokens, not 350k).
 */
export function estimateInputTokens(body: Record<string, unknown>, build: (body: Record<string, unknown>) => string): number {
  const messages = Array.isArray(body.messages) ? body.messages.map(withoutImageParts) : body.messages;
  return estimateTokens(build({ ...body, messages })) + TOKENS_PER_IMAGE_ALLOWANCE * countImageParts(body.messages);
}

function withoutImageParts(message: unknown): unknown {
  const content = (message as { content?: unknown } | null)?.content;
  if (!Array.isArray(content)) return message;
  return { ...(message as object), content: content.filter((part) => (part as { type?: unknown } | null)?.type !== "image_url") };
}
