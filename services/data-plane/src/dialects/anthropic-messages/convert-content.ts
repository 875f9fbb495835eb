// Anthropic `system` and `messages` -> shared (OpenAI chat) messages.
//   system (string or text blocks)       -> one system message
//   a `system` turn inside messages      -> a system message in its place (Claude Code sends one there
//                                           for models it does not know; native paths get it as written)
//   user text / image (base64, url)      -> text / image_url parts
//   user document: PDF base64            -> a `file` part (data URL); plain text source -> a text part
//   user tool_result (string or blocks)  -> a tool message before the turn's other parts;
//                                           `is_error` prefixes its text with "Error: " (OpenAI has no flag);
//                                           its images follow in a user message (tool messages take text only)
//   assistant text / tool_use            -> content / tool_calls (input as JSON text)
//   thinking / redacted_thinking         -> dropped: their signatures only mean something to Anthropic
// An image URL of a provider's storage (gs://, Gemini's Files API) is refused on every path (provider-storage.ts).
// A block only an Anthropic model understands (a document by URL or with citations, server tool blocks, ...) is recorded
// as native-only: the request can then go to Anthropic paths alone. A block naming a stored file
// (file_id) is refused on every path (provider-resources.ts).
// `cache_control` is left out of the translation (it stays in the original for native paths).
import { echo } from "@gateway/proto";
import { badField, isRecord, type JsonObject, requireRecord, requireString } from "./json-fields";
import { requireClientMediaUrl } from "../provider-storage";
import { refuseStoredFile } from "./provider-resources";

export interface ConvertedContent {
  messages: JsonObject[];
  /** Why the request can only be sent to an upstream that speaks Anthropic Messages itself (first reason). */
  nativeOnly: string | undefined;
}

export function convertContent(system: unknown, messages: unknown): ConvertedContent {
  const state: ConvertedContent = { messages: [], nativeOnly: undefined };
  const nativeOnly = (reason: string) => {
    state.nativeOnly ??= reason;
  };
  const systemMessage = convertSystem(system);
  if (systemMessage) state.messages.push(systemMessage);
  if (!Array.isArray(messages) || messages.length === 0) throw badField("messages", "must be a non-empty array.");
  messages.forEach((raw, index) => {
    const path = `messages.${index}`;
    const message = requireRecord(raw, path);
    if (message.role === "system") {
      const turn = convertSystem(message.content, `${path}.content`);
      if (turn) state.messages.push(turn);
      return;
    }
    if (message.role !== "user" && message.role !== "assistant") throw badField(`${path}.role`, 'must be "user", "assistant" or "system".');
    const blocks = contentBlocks(message.content, `${path}.content`);
    if (message.role === "user") state.messages.push(...userMessages(blocks, path, nativeOnly));
    else state.messages.push(assistantMessage(blocks, path, nativeOnly));
  });
  return state;
}

function convertSystem(system: unknown, path = "system"): JsonObject | undefined {
  if (system === undefined || system === null) return undefined;
  if (typeof system === "string") return system.length > 0 ? { role: "system", content: system } : undefined;
  const blocks = contentBlocks(system, path);
  const parts = blocks.map((block, index) => {
    if (block.type !== "text") throw badField(`${path}.${index}.type`, 'must be "text".');
    return { type: "text", text: requireString(block.text, `${path}.${index}.text`) };
  });
  return parts.length > 0 ? { role: "system", content: parts } : undefined;
}

/** A string is one text block; an array must hold blocks with a type. */
function contentBlocks(content: unknown, path: string): JsonObject[] {
  if (typeof content === "string") return [{ type: "text", text: content }];
  if (!Array.isArray(content)) throw badField(path, "must be a string or an array of content blocks.");
  return content.map((block, index) => {
    const record = requireRecord(block, `${path}.${index}`);
    requireString(record.type, `${path}.${index}.type`);
    refuseStoredFile(record, `${path}.${index}`);
    return record;
  });
}

type NativeOnly = (reason: string) => void;

function userMessages(blocks: JsonObject[], path: string, nativeOnly: NativeOnly): JsonObject[] {
  const toolMessages: JsonObject[] = [];
  const parts: JsonObject[] = [];
  const toolImages: JsonObject[] = [];
  blocks.forEach((block, index) => {
    const at = `${path}.content.${index}`;
    if (block.type === "tool_result") {
      const { message, images } = toolResult(block, at, nativeOnly);
      toolMessages.push(message);
      toolImages.push(...images);
      return;
    }
    const part = userPart(block, at, nativeOnly);
    if (part) parts.push(part);
  });
  const out = [...toolMessages];
  const userParts = [...toolImages, ...parts];
  if (userParts.length > 0) out.push({ role: "user", content: plainOrParts(userParts) });
  return out;
}

/** One text part as a plain string (the shape every upstream takes); anything else as parts. */
function plainOrParts(parts: JsonObject[]): string | JsonObject[] {
  return parts.length === 1 && parts[0]!.type === "text" ? (parts[0]!.text as string) : parts;
}

function userPart(block: JsonObject, at: string, nativeOnly: NativeOnly): JsonObject | undefined {
  switch (block.type) {
    case "text":
      return { type: "text", text: requireString(block.text, `${at}.text`) };
    case "image":
      return imagePart(block, at, nativeOnly);
    case "document":
      return documentPart(block, at, nativeOnly);
    case "thinking":
    case "redacted_thinking":
      return undefined;
    default:
      nativeOnly(`${at}: a ${echo(String(block.type))} block can only be sent to an Anthropic model.`);
      return undefined;
  }
}

function imagePart(block: JsonObject, at: string, nativeOnly: NativeOnly): JsonObject | undefined {
  const source = requireRecord(block.source, `${at}.source`);
  if (source.type === "base64") {
    const mediaType = requireString(source.media_type, `${at}.source.media_type`);
    const data = requireString(source.data, `${at}.source.data`);
    return { type: "image_url", image_url: { url: `data:${mediaType};base64,${data}` } };
  }
  if (source.type === "url") {
    const url = requireString(source.url, `${at}.source.url`);
    requireClientMediaUrl(url, `${at}.source.url`);
    return { type: "image_url", image_url: { url } };
  }
  nativeOnly(`${at}.source: an image of source type ${echo(String(source.type))} can only be sent to an Anthropic model.`);
  return undefined;
}

function documentPart(block: JsonObject, at: string, nativeOnly: NativeOnly): JsonObject | undefined {
  const source = requireRecord(block.source, `${at}.source`);
  // Citations change the answer (citation blocks only Anthropic writes): they cannot be dropped.
  if (isRecord(block.citations) && block.citations.enabled === true)
    nativeOnly(`${at}.citations: citations can only be asked of an Anthropic model.`);
  if (source.type === "base64" && source.media_type === "application/pdf") {
    const data = requireString(source.data, `${at}.source.data`);
    const filename = typeof block.title === "string" && block.title.length > 0 ? block.title : "document.pdf";
    return { type: "file", file: { filename, file_data: `data:application/pdf;base64,${data}` } };
  }
  if (source.type === "text") return { type: "text", text: requireString(source.data, `${at}.source.data`) };
  nativeOnly(
    `${at}.source: a document of source type ${echo(String(source.type))} can only be sent to an Anthropic model (a base64 PDF or plain text is translated).`,
  );
  return undefined;
}

function toolResult(block: JsonObject, at: string, nativeOnly: NativeOnly): { message: JsonObject; images: JsonObject[] } {
  const toolUseId = requireString(block.tool_use_id, `${at}.tool_use_id`);
  const texts: string[] = [];
  const images: JsonObject[] = [];
  if (typeof block.content === "string") texts.push(block.content);
  else if (block.content !== undefined) {
    contentBlocks(block.content, `${at}.content`).forEach((inner, index) => {
      const part = userPart(inner, `${at}.content.${index}`, nativeOnly);
      if (part?.type === "text") texts.push(part.text as string);
      else if (part) images.push(part);
    });
  }
  const text = texts.join("\n");
  return { message: { role: "tool", tool_call_id: toolUseId, content: block.is_error === true ? `Error: ${text}` : text }, images };
}

function assistantMessage(blocks: JsonObject[], path: string, nativeOnly: NativeOnly): JsonObject {
  const texts: string[] = [];
  const toolCalls: JsonObject[] = [];
  blocks.forEach((block, index) => {
    const at = `${path}.content.${index}`;
    if (block.type === "text") texts.push(requireString(block.text, `${at}.text`));
    else if (block.type === "tool_use") {
      const input = block.input === undefined ? {} : requireRecord(block.input, `${at}.input`);
      toolCalls.push({
        id: requireString(block.id, `${at}.id`),
        type: "function",
        function: { name: requireString(block.name, `${at}.name`), arguments: JSON.stringify(input) },
      });
    } else if (block.type !== "thinking" && block.type !== "redacted_thinking") {
      nativeOnly(`${at}: a ${echo(String(block.type))} block can only be sent to an Anthropic model.`);
    }
  });
  // null content is for a turn of tool calls only: a turn left empty (thinking only) says "".
  const message: JsonObject = { role: "assistant", content: texts.length > 0 ? texts.join("") : toolCalls.length > 0 ? null : "" };
  if (toolCalls.length > 0) message.tool_calls = toolCalls;
  return message;
}
