// OpenAI `tools` / `tool_choice` as Gemini `tools[].functionDeclarations` and
// `toolConfig.functionCallingConfig`.
//
// Parameter schemas go into `parametersJsonSchema`, Gemini's JSON Schema field,
// unchanged: it takes the full JSON Schema (`$schema`, `additionalProperties`;
// unsupported keywords are ignored, `$ref`/`$defs` understood). The older
// `parameters` field takes an OpenAPI subset that refuses such keys, so it is
// not used. OpenAI's `strict` sits on the function, not in its schema, and is
// dropped with the other function fields Gemini lacks.
import { isObject, type JsonObject } from "./wire-types";

export interface ConvertedTools {
  tools?: { functionDeclarations: JsonObject[] }[];
  toolConfig?: { functionCallingConfig: { mode: "AUTO" | "ANY" | "NONE"; allowedFunctionNames?: string[] } };
}

export function convertTools(tools: unknown, toolChoice: unknown): ConvertedTools {
  const declarations: JsonObject[] = [];
  for (const tool of Array.isArray(tools) ? tools : []) {
    // Only function tools have a Gemini counterpart; OpenAI's custom and built-in tools are dropped.
    if (!isObject(tool) || tool.type !== "function" || !isObject(tool.function)) continue;
    const { name, description, parameters } = tool.function;
    if (typeof name !== "string" || name === "") continue;
    const declaration: JsonObject = { name };
    if (typeof description === "string" && description !== "") declaration.description = description;
    if (isObject(parameters)) declaration.parametersJsonSchema = parameters;
    declarations.push(declaration);
  }
  // A tool_choice without tools means nothing upstream; Gemini would refuse a lone toolConfig naming functions.
  if (declarations.length === 0) return {};
  const config = functionCallingConfig(toolChoice);
  return config
    ? { tools: [{ functionDeclarations: declarations }], toolConfig: { functionCallingConfig: config } }
    : { tools: [{ functionDeclarations: declarations }] };
}

/** auto -> AUTO, none -> NONE, required -> ANY, a named function -> ANY restricted to it; anything else -> Gemini's default (AUTO). */
function functionCallingConfig(choice: unknown): NonNullable<ConvertedTools["toolConfig"]>["functionCallingConfig"] | undefined {
  if (choice === "auto") return { mode: "AUTO" };
  if (choice === "none") return { mode: "NONE" };
  if (choice === "required") return { mode: "ANY" };
  if (isObject(choice) && choice.type === "function" && isObject(choice.function) && typeof choice.function.name === "string") {
    return { mode: "ANY", allowedFunctionNames: [choice.function.name] };
  }
  return undefined;
}
