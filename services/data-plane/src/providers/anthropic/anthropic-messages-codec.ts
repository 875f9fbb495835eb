// The Anthropic Messages client dialect spoken natively: the client's body
// goes to POST /messages as written (fields outside the Messages API's
// request allowlist dropped, the model id replaced, a cap in `max_tokens`),
// with the client's `anthropic-beta` header; the answer is relayed as written
// and read here into the shared representation and the usage record for the usage meter only.
import type { NativeCodec, RequestContext, UpstreamCall } from "../provider-adapter";
import { AnthropicStreamTranslator } from "./anthropic-stream-translator";
import { MessagesEventBytes } from "./messages-event-bytes";
import { anthropicHeaders } from "./build-anthropic-request";
import { convertAnthropicMessage } from "./convert-anthropic-message";
import { readMessageUsage } from "./convert-anthropic-usage";
import type { JsonObject } from "./json-values";

/**
 * The request fields of POST /v1/messages (the gateway's own `service` block is not one), less
 * `container` and `mcp_servers`: server-side resources the dialect refuses, never forwarded.
 */
export const MESSAGES_FIELDS: ReadonlySet<string> = new Set([
  "model",
  "messages",
  "max_tokens",
  "system",
  "metadata",
  "stop_sequences",
  "stream",
  "temperature",
  "top_p",
  "top_k",
  "tools",
  "tool_choice",
  "thinking",
  "service_tier",
  "context_management",
  "output_config",
  "output_format",
  "inference_geo",
]);

/** The request fields of POST /v1/messages/count_tokens. */
export const COUNT_TOKENS_FIELDS: ReadonlySet<string> = new Set([
  "model",
  "messages",
  "system",
  "tools",
  "tool_choice",
  "thinking",
  "context_management",
  "output_config",
  "output_format",
]);

/** Client headers forwarded to Anthropic: the beta features a client opted into. */
const FORWARDED_HEADERS = ["anthropic-beta"] as const;

/** A Messages client's body as it goes upstream: its allowlisted fields, the upstream's model, capped to `maxTokens` when given (the clouds that carry it too). */
export function messagesRequest(body: JsonObject, context: RequestContext, maxTokens: number | undefined): JsonObject {
  const upstream = allowed(body, MESSAGES_FIELDS, context);
  if (maxTokens !== undefined) upstream.max_tokens = maxTokens;
  return upstream;
}

/** The client's headers that go upstream with its Messages body (FORWARDED_HEADERS), as sent. */
export function forwardedClientHeaders(context: RequestContext): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const name of FORWARDED_HEADERS) {
    const value = context.clientHeaders?.[name];
    if (value) headers[name] = value;
  }
  return headers;
}

export const anthropicMessagesCodec: NativeCodec = {
  call: (body, context, maxTokens) => ({
    path: "/messages",
    headers: nativeHeaders(context),
    body: JSON.stringify(messagesRequest(body, context, maxTokens)),
  }),
  response: (json, context) => convertAnthropicMessage(json, context),
  usage: (json) => readMessageUsage(json),
  stream: (context) => new AnthropicStreamTranslator(context),
  eventBytes: () => new MessagesEventBytes(),
  countTokens: (body, context) => anthropicCountTokensCall(body, context),
};

/** POST /messages/count_tokens for a client's Messages body (its answer is `{"input_tokens": N}`). */
export function anthropicCountTokensCall(body: JsonObject, context: RequestContext): UpstreamCall {
  return {
    path: "/messages/count_tokens",
    headers: nativeHeaders(context),
    body: JSON.stringify(allowed(body, COUNT_TOKENS_FIELDS, context)),
  };
}

/** The body's allowed fields in their order, the model replaced by the upstream's id. */
export function allowed(body: JsonObject, fields: ReadonlySet<string>, context: RequestContext): JsonObject {
  const upstream: JsonObject = {};
  for (const [key, value] of Object.entries(body)) if (fields.has(key)) upstream[key] = value;
  upstream.model = context.upstreamModel;
  return upstream;
}

function nativeHeaders(context: RequestContext): Record<string, string> {
  return { ...anthropicHeaders(context.apiKey), ...forwardedClientHeaders(context) };
}
