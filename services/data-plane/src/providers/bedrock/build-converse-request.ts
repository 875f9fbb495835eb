// An OpenAI chat body -> one Converse (or ConverseStream) call. Only the fields
// below are translated; every other caller field has no Converse counterpart
// and is dropped silently.
//   messages                          -> system + messages (convert-to-converse-messages.ts)
//   max_completion_tokens/max_tokens  -> inferenceConfig.maxTokens
//   temperature, top_p                -> inferenceConfig.temperature, topP
//   stop                              -> inferenceConfig.stopSequences
//   tools, tool_choice                -> toolConfig {tools[].toolSpec, toolChoice auto|any|tool}
// `tool_choice: "none"` has no Converse form: the tools are left out instead.
import { isRecord, type JsonObject } from "../chat-usage";
import type { RequestContext, UpstreamCall } from "../provider-adapter";
import { modelPath } from "./bedrock-model-id";
import { convertToConverseMessages } from "./convert-to-converse-messages";
import { bedrockJsonHeaders } from "./invoke-anthropic-call";

export function buildConverseCall(body: JsonObject, context: RequestContext): UpstreamCall {
  let { system, messages } = convertToConverseMessages(body.messages);
  // A conversation of system messages only: Converse requires a message.
  if (messages.length === 0 && system.length > 0) {
    messages = [{ role: "user", content: system }];
    system = [];
  }
  const request: JsonObject = {};
  if (system.length > 0) request.system = system;
  request.messages = messages;

  const inference = inferenceConfig(body);
  if (Object.keys(inference).length > 0) request.inferenceConfig = inference;
  const tools = toolConfig(body.tools, body.tool_choice);
  if (tools) request.toolConfig = tools;

  const streamed = body.stream === true;
  return {
    path: modelPath(context.upstreamModel, streamed ? "converse-stream" : "converse"),
    headers: bedrockJsonHeaders(streamed),
    body: JSON.stringify(request),
  };
}

function inferenceConfig(body: JsonObject): JsonObject {
  const config: JsonObject = {};
  const maxTokens = positiveInteger(body.max_completion_tokens) ?? positiveInteger(body.max_tokens);
  if (maxTokens !== undefined) config.maxTokens = maxTokens;
  if (finite(body.temperature)) config.temperature = body.temperature;
  if (finite(body.top_p)) config.topP = body.top_p;
  const stops = typeof body.stop === "string" ? [body.stop] : Array.isArray(body.stop) ? body.stop : [];
  const stopSequences = stops.filter((stop): stop is string => typeof stop === "string" && stop.length > 0);
  if (stopSequences.length > 0) config.stopSequences = stopSequences;
  return config;
}

function toolConfig(tools: unknown, toolChoice: unknown): JsonObject | undefined {
  if (!Array.isArray(tools) || toolChoice === "none") return undefined;
  const specs = tools.flatMap((tool) => {
    const fn = isRecord(tool) && tool.type === "function" && isRecord(tool.function) ? tool.function : undefined;
    if (!fn || typeof fn.name !== "string") return [];
    const spec: JsonObject = { name: fn.name };
    if (typeof fn.description === "string" && fn.description !== "") spec.description = fn.description;
    spec.inputSchema = { json: isRecord(fn.parameters) ? fn.parameters : { type: "object", properties: {} } };
    return [{ toolSpec: spec }];
  });
  if (specs.length === 0) return undefined;
  const config: JsonObject = { tools: specs };
  const choice = converseToolChoice(toolChoice);
  if (choice) config.toolChoice = choice;
  return config;
}

function converseToolChoice(choice: unknown): JsonObject | undefined {
  if (choice === "auto") return { auto: {} };
  if (choice === "required") return { any: {} };
  if (isRecord(choice) && isRecord(choice.function) && typeof choice.function.name === "string")
    return { tool: { name: choice.function.name } };
  return undefined;
}

const finite = (value: unknown): value is number => typeof value === "number" && Number.isFinite(value);
const positiveInteger = (value: unknown): number | undefined =>
  typeof value === "number" && Number.isInteger(value) && value > 0 ? value : undefined;
