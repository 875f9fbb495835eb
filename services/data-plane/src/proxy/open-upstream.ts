// Reserve, then send the request upstream and wait for its status. An
// upstream failure before a usable response releases the hold (nothing
// billable happened) and becomes a normalized error; the upstream's own body
// is never relayed. A client that left meanwhile is billed for its prompt.
import { GatewayError, upstreamFailure, upstreamUnreachable } from "../errors";
import type { Gateway } from "../gateway";
import type { UpstreamResponse } from "../upstream/upstream-http";
import type { ClientLink } from "../routes/client-link";
import { PathHealth } from "../routing/path-health";
import { classifyUpstreamError, retryAfterSeconds } from "../providers/openai-compatible/classify-error";
import { releaseCall, reserveCall, settlePromptOnly } from "./call-money";
import type { PreparedCall } from "./prepare-call";

export const clientClosed = () => new GatewayError(499, "invalid_request_error", "client_closed", "The client closed the request.");

export async function openUpstream(gateway: Gateway, call: PreparedCall, client: ClientLink): Promise<UpstreamResponse> {
  await reserveCall(gateway, call);
  if (client.gone.aborted) {
    // The client left while the hold was being placed: the upstream never sees the request.
    await releaseCall(gateway, call);
    throw clientClosed();
  }
  const started = performance.now();
  const healthKey = PathHealth.key(call.path.provider, call.path.upstreamModel);
  const attempt = { model: call.model.id, path: call.path.provider, outcome: "ok", ms: 0 };
  call.trace.attempts.push(attempt);
  let response: UpstreamResponse;
  try {
    response = await call.provider.send(call.endpoint === "chat" ? "/chat/completions" : "/embeddings", call.payload, call.apiKey, client.upstream);
  } catch (error) {
    attempt.ms = Math.round(performance.now() - started);
    if (client.gone.aborted) {
      attempt.outcome = "client_closed";
      await settlePromptOnly(gateway, call);
      throw Object.assign(clientClosed(), { cause: error });
    }
    attempt.outcome = "unreachable";
    gateway.health.record(healthKey, { ok: false, latencyMs: attempt.ms });
    await releaseCall(gateway, call);
    throw upstreamUnreachable();
  }
  attempt.ms = Math.round(performance.now() - started);
  // Health of the path: server errors, rate limits and the path's own faults (our key refused, the
  // model gone at the provider) count against it; a caller's bad request does not.
  const pathFault = response.statusCode >= 500 || [401, 403, 404, 429].includes(response.statusCode);
  gateway.health.record(healthKey, { ok: !pathFault, latencyMs: attempt.ms });
  if (response.statusCode !== 200) {
    attempt.outcome = `http_${response.statusCode}`;
    const body = await readErrorBody(response);
    await releaseCall(gateway, call);
    throw upstreamFailure(response.statusCode, { category: classifyUpstreamError(body), retryAfterSeconds: retryAfterSeconds(response.headers["retry-after"]) });
  }
  return response;
}

const ERROR_BODY_LIMIT = 64 * 1024;

/** An upstream error body, parsed when it is small JSON (only its structured fields are used). */
async function readErrorBody(response: UpstreamResponse): Promise<unknown> {
  try {
    const length = Number(response.headers["content-length"] ?? 0);
    if (length > ERROR_BODY_LIMIT) {
      await response.body.dump();
      return undefined;
    }
    const text = await response.body.text();
    return text.length <= ERROR_BODY_LIMIT ? (JSON.parse(text) as unknown) : undefined;
  } catch {
    return undefined;
  }
}

/** Response headers every chat answer carries. */
export function serviceHeaders(call: PreparedCall, reason: string): Record<string, string> {
  return { "x-service-model": call.model.id, "x-service-reason": reason };
}
