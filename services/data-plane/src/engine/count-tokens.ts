// Counting a request's input tokens without calling the model (Anthropic's
// POST /v1/messages/count_tokens). Routed like a call (routing/route-request.ts);
// when the first access path's upstream speaks the client's dialect and has a
// counting endpoint, the count is its answer, otherwise the gateway's own
// estimate from the translated upstream body. Never held, never billed, one
// attempt, no fallback.
import { estimateTokens } from "../billing/hold-estimate";
import type { CatalogueSnapshot } from "../catalogue/catalogue-snapshot";
import type { ClientRequest } from "../dialects/client-dialect";
import { upstreamFailure, upstreamUnreachable } from "../errors";
import type { RequestContext } from "../providers/provider-adapter";
import type { UpstreamProvider } from "../providers/upstream-provider";
import { routeRequest, type RoutingContext } from "../routing/route-request";
import { retryAfterSeconds } from "../upstream/retry-after";

export interface CountContext extends RoutingContext {
  providers: ReadonlyMap<string, UpstreamProvider>;
  credentials: ReadonlyMap<string, string>;
}

export interface TokenCount {
  inputTokens: number;
  /** The gateway's estimate (the upstream has no counting endpoint for this dialect). */
  estimated: boolean;
  /** The catalogue model the count is for. */
  model: string;
}

/** Bounds a count, which the upstream answers at once: no stream, no long generation. */
const COUNT_TIMEOUT_MS = 30_000;

export async function countTokens(
  context: CountContext,
  catalogue: CatalogueSnapshot,
  dialectName: string,
  request: ClientRequest,
): Promise<TokenCount> {
  const route = routeRequest(context, catalogue, request.body, request.service, "chat");
  const targets = route.candidates.flatMap((candidate) =>
    candidate.paths.map((path) => {
      const provider = context.providers.get(path.provider)!;
      return { model: candidate.model, path, provider, native: provider.adapter.native(dialectName) };
    }),
  );
  const target = request.nativeOnly ? targets.find((candidate) => candidate.native) : targets[0];
  if (!target) throw request.nativeOnly!;
  const requestContext: RequestContext = {
    upstreamModel: target.path.upstreamModel,
    apiKey: target.path.credentialsRef ? context.credentials.get(target.path.credentialsRef) : undefined,
    maxOutputTokens: target.model.maxOutputTokens,
    contextLength: target.model.contextLength,
    clientHeaders: request.forwardHeaders,
  };
  const count = target.native?.countTokens?.(request.original, requestContext);
  if (!count) {
    const translated = target.provider.adapter.request("chat", request.body, requestContext);
    return { inputTokens: estimateTokens(translated.body), estimated: true, model: target.model.id };
  }
  let response: Awaited<ReturnType<UpstreamProvider["send"]>>;
  try {
    response = await target.provider.send(count, AbortSignal.timeout(COUNT_TIMEOUT_MS));
  } catch {
    throw upstreamUnreachable();
  }
  const body: unknown = await response.body.json().catch(() => undefined);
  const inputTokens = (body as { input_tokens?: unknown } | undefined)?.input_tokens;
  if (response.statusCode === 200 && typeof inputTokens === "number") return { inputTokens, estimated: false, model: target.model.id };
  const status = response.statusCode === 200 ? 502 : response.statusCode;
  throw upstreamFailure(status, {
    category: target.provider.adapter.classifyError(body),
    retryAfterSeconds: retryAfterSeconds(response.headers["retry-after"]),
  });
}
