// Non-streamed chat completions and embeddings: forward, read the whole
// answer, settle its exact cost, return the upstream body with usage.cost.
import { countImages, estimateTokens } from "../billing/hold-estimate";
import { clientClosed, GatewayError } from "../errors";
import type { Gateway } from "../gateway";
import type { ClientLink } from "../routes/client-link";
import { releaseIfOpen, settleCall, settlePromptOnly } from "./call-money";
import { responseContext, type PreparedCall } from "./prepare-call";
import { UpstreamAttempts } from "./upstream-attempts";
import { readUsage, usageWithCost } from "./usage";

const choicesOf = (json: Record<string, unknown>): { message?: unknown }[] => (Array.isArray(json.choices) ? json.choices : []);

function producedText(json: Record<string, unknown>): string {
  // Images are billed per image, not as text.
  return choicesOf(json)
    .map((choice) => JSON.stringify({ ...(choice.message as object), images: undefined }))
    .join("");
}

export async function completeJson(gateway: Gateway, call: PreparedCall, client: ClientLink): Promise<Record<string, unknown>> {
  try {
    return await answer(gateway, call, client);
  } catch (error) {
    if (!(error instanceof GatewayError)) await releaseIfOpen(gateway, call);
    throw error;
  }
}

async function answer(gateway: Gateway, call: PreparedCall, client: ClientLink): Promise<Record<string, unknown>> {
  const attempts = new UpstreamAttempts(gateway, call, client);
  let json: Record<string, unknown> | undefined;
  while (!json) {
    const response = await attempts.open();
    try {
      json = call.target.provider.adapter.response(call.endpoint, await response.body.json(), responseContext(call));
      attempts.answered();
    } catch {
      if (client.gone) {
        // The client left and the answer did not arrive within the drain.
        await settlePromptOnly(gateway, call);
        throw clientClosed();
      }
      // The upstream answered 200 but the body was cut or unreadable: nothing
      // usable reached the caller, so nothing is billed; the next attempt may answer.
      attempts.failedBeforeFirstByte("body_unreadable");
    }
  }

  const tokens = {
    ...(readUsage(json.usage) ?? {
      inputTokens: estimateTokens(call.target.upstream.body),
      outputTokens: call.endpoint === "chat" ? estimateTokens(producedText(json)) : 0,
    }),
    images: choicesOf(json).reduce((sum, choice) => sum + countImages(choice.message), 0),
  };
  if (call.endpoint === "embeddings" && call.body.encoding_format === "base64") encodeEmbeddingsBase64(json);
  const debited = await settleCall(gateway, call, tokens);
  json.usage = usageWithCost(json.usage, tokens, debited);
  if (call.service) json.service = { reason: call.trace };
  return json;
}

/**
 * `encoding_format: "base64"` asks for little-endian float32 vectors in
 * base64, as OpenAI sends them. Upstreams without that option (Gemini) answer
 * with float arrays, encoded here; vectors already in base64 are left alone.
 */
function encodeEmbeddingsBase64(json: Record<string, unknown>): void {
  if (!Array.isArray(json.data)) return;
  for (const item of json.data as { embedding?: unknown }[]) {
    if (!Array.isArray(item.embedding)) continue;
    item.embedding = Buffer.from(new Float32Array(item.embedding as number[]).buffer).toString("base64");
  }
}
