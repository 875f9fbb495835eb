// An OpenAI chat body -> one Anthropic Messages call (POST /messages).
// Only the fields below are translated; every other caller field (n,
// logprobs, seed, penalties, service_tier, modalities, OpenRouter routing
// extras, ...) has no Anthropic counterpart and is dropped silently, never an error.
import type { RequestContext, UpstreamCall } from "../provider-adapter";
import { ANTHROPIC_VERSION } from "./anthropic-wire-types";
import { convertToAnthropicMessages } from "./convert-to-anthropic-messages";
import { convertToAnthropicToolChoice, convertToAnthropicTools } from "./convert-to-anthropic-tools";
import { isRecord, nonEmptyString, positiveInteger, type JsonObject } from "./json-values";

export function buildAnthropicChatCall(body: JsonObject, context: RequestContext): UpstreamCall {
  return { path: "/messages", headers: anthropicHeaders(context.apiKey), body: JSON.stringify(anthropicChatRequest(body, context)) };
}

/** The Messages request body for an OpenAI chat body (reused by the clouds that carry it: Vertex, Bedrock). */
export function anthropicChatRequest(body: JsonObject, context: RequestContext): JsonObject {
  const converted = convertToAnthropicMessages(body.messages);
  let { system, messages } = converted;
  // A conversation of system messages only: OpenAI answers it, Anthropic refuses empty messages.
  if (messages.length === 0 && system !== undefined) {
    messages = [{ role: "user", content: system }];
    system = undefined;
  }
  const request: JsonObject = {
    model: context.upstreamModel,
    // Anthropic requires max_tokens; without the caller's, the model's catalogue maximum (the hold
    // covers that much output), lowered for a prompt so long that input plus that maximum would
    // exceed the context window, which Anthropic refuses. Bytes / 3 estimates the prompt's tokens.
    max_tokens:
      positiveInteger(body.max_completion_tokens) ?? positiveInteger(body.max_tokens) ?? defaultMaxTokens(messages, system, context),
  };
  if (system !== undefined) request.system = system;
  request.messages = messages;

  const tools = convertToAnthropicTools(body.tools);
  if (tools) {
    request.tools = tools;
    // A tool_choice without tools is an Anthropic error, so the choice only travels with tools.
    const toolChoice = convertToAnthropicToolChoice(body.tool_choice, body.parallel_tool_calls);
    if (toolChoice) request.tool_choice = toolChoice;
  }

  const outputFormat = outputFormatFor(body.response_format);
  if (outputFormat) request.output_config = { format: outputFormat };

  const stopSequences = stopSequencesFrom(body.stop);
  if (stopSequences) request.stop_sequences = stopSequences;

  // OpenAI's temperature runs 0..2, Anthropic's 0..1: larger values are clamped rather than refused.
  if (typeof body.temperature === "number" && Number.isFinite(body.temperature))
    request.temperature = Math.min(1, Math.max(0, body.temperature));
  // Recent Claude models refuse temperature and top_p together; temperature, the more common knob, wins.
  else if (typeof body.top_p === "number" && Number.isFinite(body.top_p)) request.top_p = body.top_p;
  const topK = positiveInteger(body.top_k); // an OpenRouter-style extra that Anthropic accepts natively
  if (topK !== undefined) request.top_k = topK;

  // Anthropic's one per-request metadata field is an opaque end-user id; OpenAI's `user`
  // (or its successor `safety_identifier`) is exactly that. OpenAI's own `metadata` map is for stored completions: dropped.
  const userId = nonEmptyString(body.user) ?? nonEmptyString(body.safety_identifier);
  if (userId !== undefined) request.metadata = { user_id: userId };

  // Anthropic streams always report usage (message_start, message_delta); no stream_options needed.
  if (body.stream === true) request.stream = true;
  return request;
}

export function anthropicHeaders(apiKey: string | undefined): Record<string, string> {
  const headers: Record<string, string> = { "content-type": "application/json", "anthropic-version": ANTHROPIC_VERSION };
  if (apiKey) headers["x-api-key"] = apiKey;
  return headers;
}

/**
 * `json_schema` -> Anthropic structured outputs (`output_config.format`, generally available, no
 * beta header). OpenAI's `name`, `description` and `strict` have no counterpart: Anthropic's
 * structured output is always strict.
 * `json_object` is dropped: OpenAI requires the prompt to ask for JSON in that mode, so the
 * instruction is already there, and an empty-object schema cannot stand in (Anthropic's schemas
 * must be closed objects, which would forbid every key).
 */
function outputFormatFor(responseFormat: unknown): JsonObject | undefined {
  if (!isRecord(responseFormat) || responseFormat.type !== "json_schema" || !isRecord(responseFormat.json_schema)) return undefined;
  const schema = responseFormat.json_schema.schema;
  return isRecord(schema) ? { type: "json_schema", schema } : undefined;
}

function stopSequencesFrom(stop: unknown): string[] | undefined {
  const sequences =
    typeof stop === "string" ? [stop] : Array.isArray(stop) ? stop.filter((item): item is string => typeof item === "string") : [];
  // Anthropic refuses a stop sequence without a non-whitespace character.
  const kept = sequences.filter((sequence) => sequence.trim().length > 0);
  return kept.length > 0 ? kept : undefined;
}

function defaultMaxTokens(messages: unknown, system: unknown, context: RequestContext): number {
  if (!context.contextLength) return context.maxOutputTokens;
  const promptTokens = Math.ceil(Buffer.byteLength(JSON.stringify([system ?? "", messages])) / 3);
  return Math.max(1, Math.min(context.maxOutputTokens, context.contextLength - promptTokens));
}
