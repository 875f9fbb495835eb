// Responses `input` (and `instructions`) as chat messages: message items with
// their text and image parts, function calls as an assistant's tool_calls,
// function call outputs as tool messages, inline files (`input_file` with
// `file_data`) as chat `file` parts. What has no chat counterpart is refused
// with a clear 400 on every path (hosted tool items included: see
// convert-tools.ts), except the model's own reasoning items, which clients
// send back on every turn and a translated upstream cannot take: they are left
// out.
import { invalidRequest } from "../../errors";
import { requireClientMediaUrl } from "../provider-storage";
import { FUNCTION_TOOLS_ONLY } from "./convert-tools";
import { echo } from "@gateway/proto";
import { isObject } from "./is-object";

type Item = Record<string, unknown>;
type Message = Record<string, unknown>;

const MESSAGE_ROLES = new Set(["user", "system", "developer", "assistant"]);

const unsupported = (message: string) => invalidRequest("unsupported_input", message);

/** The chat messages for a Responses request's `instructions` and `input`. */
export function inputAsMessages(input: unknown, instructions: unknown): Message[] {
  const messages: Message[] = [];
  if (typeof instructions === "string" && instructions !== "") messages.push({ role: "system", content: instructions });
  else if (instructions !== undefined && instructions !== null && typeof instructions !== "string")
    throw invalidRequest("invalid_body", "instructions must be a string.", "instructions");
  if (typeof input === "string") {
    messages.push({ role: "user", content: input });
    return messages;
  }
  if (!Array.isArray(input) || input.length === 0)
    throw invalidRequest("invalid_body", "input must be a string or a non-empty array of input items.", "input");
  for (const [index, item] of input.entries()) addItem(messages, item, index);
  return messages;
}

function addItem(messages: Message[], item: unknown, index: number): void {
  if (!isObject(item)) throw invalidRequest("invalid_body", `input[${index}] must be an object.`);
  const type = item.type ?? (item.role !== undefined ? "message" : undefined);
  switch (type) {
    case "message":
      messages.push(message(item, index));
      return;
    case "function_call":
      addFunctionCall(messages, item, index);
      return;
    case "function_call_output":
      messages.push(functionCallOutput(item, index));
      return;
    case "reasoning":
      return; // the model's own reasoning, sent back by clients: no chat upstream takes it
    case "item_reference":
      throw unsupported(
        `input[${index}] is an item_reference: the gateway stores no responses or items, so send the full input instead of references (clients such as the Vercel AI SDK do when store is false).`,
      );
    default:
      throw unsupported(
        `input[${index}] has type "${echo(String(type))}": only message, function_call, function_call_output and reasoning items are accepted; ${FUNCTION_TOOLS_ONLY}`,
      );
  }
}

function message(item: Item, index: number): Message {
  const role = item.role;
  if (typeof role !== "string" || !MESSAGE_ROLES.has(role))
    throw invalidRequest("invalid_body", `input[${index}].role must be one of user, system, developer, assistant.`);
  if (typeof item.content === "string") return { role, content: item.content };
  if (!Array.isArray(item.content)) throw invalidRequest("invalid_body", `input[${index}].content must be a string or an array of parts.`);
  const parts = item.content.map((part, partIndex) => contentPart(part, `input[${index}].content[${partIndex}]`));
  // Assistant and system turns take text only in chat: their parts are joined.
  if (role !== "user") {
    if (parts.some((part) => part.type !== "text")) throw unsupported(`input[${index}]: only user messages may carry images and files.`);
    return { role, content: parts.map((part) => part.text).join("") };
  }
  return { role, content: parts };
}

function contentPart(part: unknown, where: string): Item {
  if (!isObject(part)) throw invalidRequest("invalid_body", `${where} must be an object.`);
  switch (part.type) {
    case "input_text":
    case "output_text":
      if (typeof part.text !== "string") throw invalidRequest("invalid_body", `${where}.text must be a string.`);
      return { type: "text", text: part.text };
    case "refusal":
      return { type: "text", text: typeof part.refusal === "string" ? part.refusal : "" };
    case "input_image":
      if (part.file_id !== undefined && part.file_id !== null)
        throw unsupported(
          `${where}: input_image by file_id is not supported (the gateway stores no files); send image_url (an https or data: URL).`,
        );
      if (typeof part.image_url !== "string" || part.image_url === "")
        throw invalidRequest("invalid_body", `${where}.image_url must be an https or data: URL.`);
      requireClientMediaUrl(part.image_url, `${where}.image_url`);
      return {
        type: "image_url",
        image_url: part.detail === undefined ? { url: part.image_url } : { url: part.image_url, detail: part.detail },
      };
    case "input_file":
      return filePart(part, where);
    default:
      throw unsupported(
        `${where} has type "${echo(String(part.type))}": only input_text, input_image (by image_url), input_file (by file_data) and output_text parts are supported.`,
      );
  }
}

/** An inline file as the shared chat `file` part (as the Anthropic dialect writes a base64 PDF); a stored one is refused. */
function filePart(part: Item, where: string): Item {
  if (part.file_id !== undefined && part.file_id !== null)
    throw unsupported(`${where}: input_file by file_id is not supported (the gateway stores no files); send file_data (a data: URL).`);
  if (part.file_url !== undefined && part.file_url !== null)
    throw unsupported(`${where}: input_file by file_url is not supported; send file_data (a data: URL).`);
  if (typeof part.file_data !== "string" || !part.file_data.startsWith("data:"))
    throw invalidRequest("invalid_body", `${where}.file_data must be a data: URL (data:<media type>;base64,<data>).`);
  const filename = typeof part.filename === "string" && part.filename !== "" ? part.filename : "file";
  return { type: "file", file: { filename, file_data: part.file_data } };
}

/** Consecutive function calls are one assistant turn, with the text that came just before them. */
function addFunctionCall(messages: Message[], item: Item, index: number): void {
  if (typeof item.call_id !== "string" || typeof item.name !== "string" || typeof item.arguments !== "string")
    throw invalidRequest("invalid_body", `input[${index}]: a function_call needs call_id, name and arguments (a JSON string).`);
  const call = { id: item.call_id, type: "function", function: { name: item.name, arguments: item.arguments } };
  const last = messages.at(-1);
  if (last?.role === "assistant") {
    last.tool_calls = [...((last.tool_calls as unknown[] | undefined) ?? []), call];
    if (last.content === "") last.content = null;
    return;
  }
  messages.push({ role: "assistant", content: null, tool_calls: [call] });
}

function functionCallOutput(item: Item, index: number): Message {
  if (typeof item.call_id !== "string") throw invalidRequest("invalid_body", `input[${index}].call_id must be a string.`);
  const output = item.output;
  if (typeof output === "string") return { role: "tool", tool_call_id: item.call_id, content: output };
  if (Array.isArray(output)) {
    const parts = output.map((part, partIndex) => contentPart(part, `input[${index}].output[${partIndex}]`));
    if (parts.some((part) => part.type !== "text")) throw unsupported(`input[${index}]: a function_call_output may carry text only here.`);
    return { role: "tool", tool_call_id: item.call_id, content: parts.map((part) => part.text).join("") };
  }
  throw invalidRequest("invalid_body", `input[${index}].output must be a string or an array of input_text parts.`);
}
