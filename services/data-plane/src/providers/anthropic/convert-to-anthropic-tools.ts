// OpenAI `tools`, `tool_choice` and `parallel_tool_calls` -> Anthropic `tools`
// and `tool_choice`. Anthropic has one tool_choice object that also carries
// the parallel switch (`disable_parallel_tool_use`), so the two OpenAI fields
// are translated together.
import type { AnthropicTool, AnthropicToolChoice } from "./anthropic-wire-types";
import { isRecord } from "./json-values";

/** Function tools only; OpenAI's other tool kinds (custom grammar tools, ...) have no Anthropic counterpart and are dropped. */
export function convertToAnthropicTools(tools: unknown): AnthropicTool[] | undefined {
  if (!Array.isArray(tools)) return undefined;
  const converted: AnthropicTool[] = [];
  for (const tool of tools) {
    if (!isRecord(tool) || tool.type !== "function" || !isRecord(tool.function)) continue;
    const { name, description, parameters, strict } = tool.function;
    if (typeof name !== "string") continue;
    // OpenAI lets a function omit `parameters` (no arguments); Anthropic requires an input schema.
    const anthropicTool: AnthropicTool = { name, input_schema: isRecord(parameters) ? parameters : { type: "object", properties: {} } };
    if (typeof description === "string") anthropicTool.description = description;
    // Anthropic's strict tool use is the same promise as OpenAI's strict functions: arguments that match the schema.
    if (strict === true) anthropicTool.strict = true;
    converted.push(anthropicTool);
  }
  return converted.length > 0 ? converted : undefined;
}

/**
 * auto -> auto, none -> none, required -> any, a named function -> tool.
 * `parallel_tool_calls: false` -> `disable_parallel_tool_use: true` (on an
 * explicit auto when the caller named no choice). A choice Anthropic cannot
 * express (OpenAI's `allowed_tools`) is dropped, leaving Anthropic's default (auto).
 */
export function convertToAnthropicToolChoice(toolChoice: unknown, parallelToolCalls: unknown): AnthropicToolChoice | undefined {
  let choice: AnthropicToolChoice | undefined;
  if (toolChoice === "auto") choice = { type: "auto" };
  else if (toolChoice === "none") choice = { type: "none" };
  else if (toolChoice === "required") choice = { type: "any" };
  else if (
    isRecord(toolChoice) &&
    toolChoice.type === "function" &&
    isRecord(toolChoice.function) &&
    typeof toolChoice.function.name === "string"
  ) {
    choice = { type: "tool", name: toolChoice.function.name };
  }
  if (parallelToolCalls === false) {
    choice ??= { type: "auto" };
    // "none" calls no tool at all, so there is nothing to keep from running in parallel (and Anthropic takes no flag there).
    if (choice.type !== "none") choice.disable_parallel_tool_use = true;
  }
  return choice;
}
