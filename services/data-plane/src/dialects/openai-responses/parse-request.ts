// POST /v1/responses bodies: checked, the gateway's refusals for what needs
// stored state, and the request in the shared representation (chat) for
// routing, holds and translating upstreams. The body as written is kept for
// an upstream that speaks the Responses API itself.
import { invalidRequest } from "../../errors";
import { parseServiceBlock } from "../../routing/service-block";
import type { ClientRequest } from "../client-dialect";
import { requireObjectBody } from "../openai/request-body";
import { inputAsMessages } from "./convert-input";
import { convertTools, FUNCTION_TOOLS_ONLY } from "./convert-tools";
import { isObject } from "./is-object";
import { checkResponsesFields } from "./responses-fields";

const present = (value: unknown) => value !== undefined && value !== null;

const NO_STORAGE = "The gateway stores no responses or conversations: send the full input with every request.";

/** Fields copied to the shared body under the same name (`service_tier`: routing keeps a named tier to paths that price it). */
const SAME_NAME = [
  "model",
  "temperature",
  "top_p",
  "parallel_tool_calls",
  "metadata",
  "user",
  "safety_identifier",
  "prompt_cache_key",
  "service_tier",
];

export function parseResponsesRequest(raw: unknown): ClientRequest {
  const body = requireObjectBody(raw);
  checkResponsesFields(body);
  refuseStoredState(body);
  const service = parseServiceBlock(body.service);

  const shared: Record<string, unknown> = {};
  for (const field of SAME_NAME) if (present(body[field])) shared[field] = body[field];
  shared.messages = inputAsMessages(body.input, body.instructions);
  const { tools, tool_choice } = convertTools(body.tools, body.tool_choice);
  if (tools) shared.tools = tools;
  if (tool_choice !== undefined) shared.tool_choice = tool_choice;
  if (present(body.max_output_tokens)) shared.max_completion_tokens = body.max_output_tokens;
  if (isObject(body.reasoning) && present(body.reasoning.effort)) shared.reasoning_effort = body.reasoning.effort;
  Object.assign(shared, textSettings(body.text));
  if (body.stream === true) shared.stream = true;

  return { operation: "chat", body: shared, original: body, stream: body.stream === true, service };
}

/** `previous_response_id`, `conversation` and `background` need responses kept between requests; `prompt` is stored at the provider. */
function refuseStoredState(body: Record<string, unknown>): void {
  if (present(body.previous_response_id))
    throw invalidRequest("invalid_request", `previous_response_id is not supported. ${NO_STORAGE}`, "previous_response_id");
  if (present(body.conversation)) throw invalidRequest("invalid_request", `conversation is not supported. ${NO_STORAGE}`, "conversation");
  // A stored prompt is one of the provider account's resources, not the client's.
  if (present(body.prompt))
    throw invalidRequest("unsupported_input", `prompt (a stored prompt) is not supported: ${FUNCTION_TOOLS_ONLY}`, "prompt");
  if (body.background === true)
    throw invalidRequest(
      "invalid_request",
      "background is not supported: the gateway stores no responses to poll. Stream instead.",
      "background",
    );
}

/** `text.format` as `response_format`, `text.verbosity` as `verbosity`. */
function textSettings(text: unknown): Record<string, unknown> {
  if (!present(text)) return {};
  if (!isObject(text)) throw invalidRequest("invalid_body", "text must be an object.", "text");
  const settings: Record<string, unknown> = {};
  if (present(text.verbosity)) settings.verbosity = text.verbosity;
  const format = text.format;
  if (!present(format)) return settings;
  if (!isObject(format)) throw invalidRequest("invalid_body", "text.format must be an object.", "text.format");
  if (format.type === "json_object") settings.response_format = { type: "json_object" };
  else if (format.type === "json_schema") {
    if (typeof format.name !== "string" || !isObject(format.schema))
      throw invalidRequest("invalid_body", "text.format of type json_schema needs a name and a schema.", "text.format");
    const schema: Record<string, unknown> = { name: format.name };
    if (present(format.description)) schema.description = format.description;
    schema.schema = format.schema;
    if (present(format.strict)) schema.strict = format.strict;
    settings.response_format = { type: "json_schema", json_schema: schema };
  } else if (format.type !== "text")
    throw invalidRequest("invalid_body", 'text.format.type must be "text", "json_object" or "json_schema".', "text.format.type");
  return settings;
}
