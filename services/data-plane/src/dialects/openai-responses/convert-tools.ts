// Responses `tools` and `tool_choice` as chat ones. Function tools translate;
// hosted tools (web_search, file_search, code_interpreter, mcp, ...) run at
// OpenAI and exist only there, so they are named for the caller to refuse
// them on translated paths.
import { invalidRequest } from "../../errors";
import { isObject } from "./is-object";

export interface ChatTools {
  tools?: Record<string, unknown>[];
  tool_choice?: unknown;
  /** The hosted tool types asked for (in tools or tool_choice); empty when every tool is a function. */
  hosted: string[];
}

export function convertTools(tools: unknown, toolChoice: unknown): ChatTools {
  const converted: ChatTools = { hosted: [] };
  if (tools !== undefined && tools !== null) {
    if (!Array.isArray(tools)) throw invalidRequest("invalid_body", "tools must be an array.");
    const functions: Record<string, unknown>[] = [];
    tools.forEach((tool, index) => {
      if (!isObject(tool) || typeof tool.type !== "string")
        throw invalidRequest("invalid_body", `tools[${index}] must be an object with a type.`);
      if (tool.type !== "function") {
        converted.hosted.push(tool.type);
        return;
      }
      if (typeof tool.name !== "string" || tool.name === "") throw invalidRequest("invalid_body", `tools[${index}].name must be a string.`);
      const definition: Record<string, unknown> = { name: tool.name };
      if (tool.description !== undefined && tool.description !== null) definition.description = tool.description;
      if (tool.parameters !== undefined && tool.parameters !== null) definition.parameters = tool.parameters;
      if (tool.strict !== undefined && tool.strict !== null) definition.strict = tool.strict;
      functions.push({ type: "function", function: definition });
    });
    if (functions.length > 0) converted.tools = functions;
  }
  if (toolChoice !== undefined && toolChoice !== null) converted.tool_choice = convertChoice(toolChoice, converted);
  return converted;
}

function convertChoice(choice: unknown, converted: ChatTools): unknown {
  if (choice === "auto" || choice === "none" || choice === "required") return choice;
  if (isObject(choice) && choice.type === "function" && typeof choice.name === "string")
    return { type: "function", function: { name: choice.name } };
  if (isObject(choice) && typeof choice.type === "string") {
    converted.hosted.push(choice.type);
    return undefined;
  }
  throw invalidRequest("invalid_body", 'tool_choice must be "auto", "none", "required" or {"type":"function","name":...}.');
}
