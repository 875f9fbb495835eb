// A POST /v1/messages body -> a ClientRequest: checked as Anthropic checks it
// (max_tokens is required), kept as written for Anthropic paths, and
// translated to the shared representation (OpenAI chat) for every other.
//   model, stream                    -> as given (routing reads `model`: auto, auto:<tier>, bare names, vendor/model)
//   system, messages                 -> messages (convert-content.ts)
//   tools, tool_choice               -> tools, tool_choice, parallel_tool_calls (convert-tools.ts)
//   max_tokens                       -> max_completion_tokens (OpenAI's reasoning models refuse max_tokens)
//   stop_sequences                   -> stop
//   temperature, top_p, top_k        -> as given (top_k is dropped by upstreams without it)
//   thinking                         -> checked, not translated: reasoning_effort makes non-reasoning
//                                       models answer 400; it is honoured on Anthropic paths only
//   metadata.user_id                 -> user
//   output_config.format json_schema -> response_format json_schema
//   service                          -> the gateway's service block (never sent upstream)
// Server tools, `mcp_servers`, `container` and file ids are refused (provider-resources.ts).
// Other fields reach Anthropic paths only (the native allowlist), never an error.
import type { GatewayError } from "@gateway/proto";
import { invalidRequest } from "../../errors";
import { parseServiceBlock } from "../../routing/service-block";
import type { ClientRequest } from "../client-dialect";
import { convertContent } from "./convert-content";
import { convertTools } from "./convert-tools";
import { checkMessagesFields } from "./messages-fields";
import { refuseServerFields } from "./provider-resources";
import { badField, isRecord, type JsonObject, optionalNumber, optionalPositiveInteger, requireRecord, requireString } from "./json-fields";

type Headers = Readonly<Record<string, string | string[] | undefined>>;

/** The body as the shared representation, and why (if at all) it can only go to an Anthropic model. */
export function translateRequest(body: JsonObject): { shared: JsonObject; nativeOnly: string | undefined } {
  refuseServerFields(body);
  const content = convertContent(body.system, body.messages);
  const tools = convertTools(body.tools, body.tool_choice);
  const shared: JsonObject = { model: body.model, messages: content.messages };
  const { nativeOnly: toolsNativeOnly, ...toolFields } = tools;
  Object.assign(shared, toolFields);

  const maxTokens = optionalPositiveInteger(body.max_tokens, "max_tokens");
  if (maxTokens !== undefined) shared.max_completion_tokens = maxTokens;
  if (body.stop_sequences !== undefined && body.stop_sequences !== null) {
    if (!Array.isArray(body.stop_sequences)) throw badField("stop_sequences", "must be an array of strings.");
    shared.stop = body.stop_sequences.map((sequence, index) => requireString(sequence, `stop_sequences.${index}`));
  }
  for (const field of ["temperature", "top_p"] as const) {
    const value = optionalNumber(body[field], field);
    if (value !== undefined) shared[field] = value;
  }
  const topK = optionalPositiveInteger(body.top_k, "top_k");
  if (topK !== undefined) shared.top_k = topK;
  checkThinking(body.thinking);
  if (body.metadata !== undefined && body.metadata !== null) {
    const metadata = requireRecord(body.metadata, "metadata");
    if (typeof metadata.user_id === "string" && metadata.user_id.length > 0) shared.user = metadata.user_id;
  }
  const responseFormat = structuredOutput(body.output_config);
  if (responseFormat) shared.response_format = responseFormat;
  if (body.stream === true) shared.stream = true;
  return { shared, nativeOnly: content.nativeOnly ?? toolsNativeOnly };
}

/** A POST /v1/messages body: max_tokens is required, as Anthropic requires it. */
export function parseMessagesRequest(raw: unknown, headers: Headers = {}): ClientRequest {
  const body = requireBody(raw);
  if (body.max_tokens === undefined || body.max_tokens === null) throw badField("max_tokens", "Field required.");
  return toClientRequest(body, headers);
}

/** A POST /v1/messages/count_tokens body: a Messages body without max_tokens (never streamed). */
export function parseCountTokensRequest(raw: unknown, headers: Headers = {}): ClientRequest {
  const { max_tokens: _ignored, stream: _never, ...body } = requireBody(raw);
  return toClientRequest(body, headers);
}

function requireBody(raw: unknown): JsonObject {
  if (!isRecord(raw)) throw invalidRequest("invalid_body", "The request body must be a JSON object.");
  return raw;
}

function toClientRequest(raw: JsonObject, headers: Headers): ClientRequest {
  checkMessagesFields(raw);
  const service = parseServiceBlock(raw.service);
  const { shared, nativeOnly } = translateRequest(raw);
  const request: ClientRequest = { operation: "chat", body: shared, original: raw, stream: raw.stream === true, service };
  if (nativeOnly) request.nativeOnly = nativeOnlyError(nativeOnly);
  const beta = headers["anthropic-beta"];
  if (beta !== undefined) request.forwardHeaders = { "anthropic-beta": Array.isArray(beta) ? beta.join(",") : beta };
  return request;
}

const nativeOnlyError = (reason: string): GatewayError =>
  invalidRequest("unsupported_input", `${reason} The requested model is answered through a translation that cannot carry it.`);

/**
 * `thinking` is checked on every path but not translated: OpenAI's non-reasoning models (gpt-4.1)
 * refuse `reasoning_effort` with a 400, and reasoning models pick their own effort.
 */
function checkThinking(thinking: unknown): void {
  if (thinking === undefined || thinking === null) return;
  const config = requireRecord(thinking, "thinking");
  if (config.type === "disabled" || config.type === "adaptive") return;
  if (config.type !== "enabled") throw badField("thinking.type", 'must be "enabled", "disabled" or "adaptive".');
  if (optionalPositiveInteger(config.budget_tokens, "thinking.budget_tokens") === undefined)
    throw badField("thinking.budget_tokens", "Field required.");
}

function structuredOutput(outputConfig: unknown): JsonObject | undefined {
  if (!isRecord(outputConfig) || !isRecord(outputConfig.format) || outputConfig.format.type !== "json_schema") return undefined;
  const schema = requireRecord(outputConfig.format.schema, "output_config.format.schema");
  return { type: "json_schema", json_schema: { name: "output", schema, strict: true } };
}
