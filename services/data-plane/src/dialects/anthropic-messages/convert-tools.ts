// Anthropic `tools` and `tool_choice` -> shared function tools, tool_choice
// and parallel_tool_calls.
//   custom tool {name, description, input_schema}  -> {type:"function", function:{name, description, parameters}}
//   Anthropic-defined client tools (bash, text_editor, computer, memory) -> native-only (only Anthropic knows their schema)
//   server tools (web_search, web_fetch, code_execution, ...)            -> refused (provider-resources.ts)
//   tool_choice auto / any / tool / none           -> "auto" / "required" / {type:"function", ...} / "none"
//   disable_parallel_tool_use: true                -> parallel_tool_calls: false
import { badField, type JsonObject, requireRecord, requireString } from "./json-fields";
import { isAnthropicClientTool, serverToolRefused } from "./provider-resources";
import { echo } from "@gateway/proto";

export interface ConvertedTools {
  tools?: JsonObject[];
  tool_choice?: unknown;
  parallel_tool_calls?: false;
  nativeOnly?: string;
}

export function convertTools(tools: unknown, toolChoice: unknown): ConvertedTools {
  const converted: ConvertedTools = {};
  if (tools !== undefined && tools !== null) {
    if (!Array.isArray(tools)) throw badField("tools", "must be an array.");
    const functions: JsonObject[] = [];
    tools.forEach((raw, index) => {
      const tool = requireRecord(raw, `tools.${index}`);
      if (tool.type !== undefined && tool.type !== null && tool.type !== "custom") {
        const type = String(tool.type);
        if (!isAnthropicClientTool(type)) throw serverToolRefused(`tools.${index}`, `the server tool ${echo(String(type))}`);
        converted.nativeOnly ??= `tools.${index}: the Anthropic-defined tool ${echo(String(type))} can only be used with an Anthropic model.`;
        return;
      }
      const fn: JsonObject = {
        name: requireString(tool.name, `tools.${index}.name`),
        parameters: requireRecord(tool.input_schema, `tools.${index}.input_schema`),
      };
      if (typeof tool.description === "string") fn.description = tool.description;
      if (tool.strict === true) fn.strict = true;
      functions.push({ type: "function", function: fn });
    });
    if (functions.length > 0) converted.tools = functions;
  }
  if (toolChoice !== undefined && toolChoice !== null) Object.assign(converted, convertToolChoice(toolChoice));
  return converted;
}

function convertToolChoice(raw: unknown): Pick<ConvertedTools, "tool_choice" | "parallel_tool_calls"> {
  const choice = requireRecord(raw, "tool_choice");
  const parallel = choice.disable_parallel_tool_use === true ? { parallel_tool_calls: false as const } : {};
  switch (choice.type) {
    case "auto":
      return { tool_choice: "auto", ...parallel };
    case "any":
      return { tool_choice: "required", ...parallel };
    case "none":
      return { tool_choice: "none" };
    case "tool":
      return { tool_choice: { type: "function", function: { name: requireString(choice.name, "tool_choice.name") } }, ...parallel };
    default:
      throw badField("tool_choice.type", 'must be one of "auto", "any", "tool", "none".');
  }
}
