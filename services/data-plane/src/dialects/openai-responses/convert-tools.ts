// Responses `tools` and `tool_choice` as chat ones. Function tools translate;
// hosted tools (web_search, file_search, code_interpreter, mcp, custom, ...)
// are refused on every path, pass-through included: OpenAI bills them per
// call, a fee the gateway would not bill, and runs them on the provider key's
// stored resources (vector stores, containers), which are not the client's.
import { invalidRequest } from "../../errors";
import { isObject } from "./is-object";
import { echo } from "@gateway/proto";

export interface ChatTools {
  tools?: Record<string, unknown>[];
  tool_choice?: unknown;
}

/** Why hosted tools (and stored prompts, hosted tool items) are refused; ends every such 400's message. */
export const FUNCTION_TOOLS_ONLY =
  "the gateway serves function tools only, because hosted tools are priced per call and use the provider account's stored resources.";

export function convertTools(tools: unknown, toolChoice: unknown): ChatTools {
  const converted: ChatTools = {};
  if (tools !== undefined && tools !== null) {
    if (!Array.isArray(tools)) throw invalidRequest("invalid_body", "tools must be an array.", "tools");
    const functions: Record<string, unknown>[] = [];
    tools.forEach((tool, index) => {
      if (!isObject(tool) || typeof tool.type !== "string")
        throw invalidRequest("invalid_body", `tools[${index}] must be an object with a type.`);
      if (tool.type !== "function")
        throw invalidRequest("unsupported_input", `tools[${index}] is a ${echo(String(tool.type))} tool: ${FUNCTION_TOOLS_ONLY}`);
      if (typeof tool.name !== "string" || tool.name === "") throw invalidRequest("invalid_body", `tools[${index}].name must be a string.`);
      const definition: Record<string, unknown> = { name: tool.name };
      if (tool.description !== undefined && tool.description !== null) definition.description = tool.description;
      if (tool.parameters !== undefined && tool.parameters !== null) definition.parameters = tool.parameters;
      if (tool.strict !== undefined && tool.strict !== null) definition.strict = tool.strict;
      functions.push({ type: "function", function: definition });
    });
    if (functions.length > 0) converted.tools = functions;
  }
  if (toolChoice !== undefined && toolChoice !== null) converted.tool_choice = convertChoice(toolChoice);
  return converted;
}

function convertChoice(choice: unknown): unknown {
  if (choice === "auto" || choice === "none" || choice === "required") return choice;
  if (isObject(choice) && choice.type === "function" && typeof choice.name === "string")
    return { type: "function", function: { name: choice.name } };
  if (isObject(choice) && typeof choice.type === "string")
    throw invalidRequest("unsupported_input", `tool_choice of type ${echo(String(choice.type))} is not supported: ${FUNCTION_TOOLS_ONLY}`);
  throw invalidRequest("invalid_body", 'tool_choice must be "auto", "none", "required" or {"type":"function","name":...}.', "tool_choice");
}
