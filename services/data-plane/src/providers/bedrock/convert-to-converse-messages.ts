// OpenAI chat `messages` -> Converse `system` + `messages`.
//   system / developer  -> `system` text blocks, in order
//   user                -> user turn: text blocks, image blocks (data URLs only)
//   assistant           -> assistant turn: text, then one `toolUse` per tool call (arguments parsed)
//   tool                -> `toolResult` block in a user turn
// Consecutive turns of one role merge into one, as Converse requires roles to alternate
// (several tool results answering one assistant turn become one user turn).
// Other fields and part types (audio, files, `name`, refusals) are dropped, never an error.
import { invalidRequest } from "../../errors";
import { alternatingTurns } from "../alternating-turns";
import { isRecord, type JsonObject } from "../chat-usage";

export interface ConverseConversation {
  system: JsonObject[];
  messages: { role: "user" | "assistant"; content: JsonObject[] }[];
}

/** The image formats Converse accepts, by the media type of a data URL. */
const IMAGE_FORMATS: Record<string, string> = {
  "image/png": "png",
  "image/jpeg": "jpeg",
  "image/jpg": "jpeg",
  "image/gif": "gif",
  "image/webp": "webp",
};

export function convertToConverseMessages(messages: unknown): ConverseConversation {
  const { system, turns } = alternatingTurns<JsonObject>(messages, {
    system: textBlocks,
    user: userBlocks,
    assistant: (message) => [...textBlocks(message.content), ...toolUseBlocks(message.tool_calls)],
    tool: (message) =>
      typeof message.tool_call_id === "string"
        ? [{ toolResult: { toolUseId: message.tool_call_id, content: toolResultContent(message.content) } }]
        : [],
  });
  return { system, messages: turns.map(({ role, blocks }) => ({ role, content: blocks })) };
}

/** Text of a string or of the `text` parts of a part list; empty texts dropped (Converse refuses blank blocks). */
function textBlocks(content: unknown): JsonObject[] {
  if (typeof content === "string") return content.trim() === "" ? [] : [{ text: content }];
  if (!Array.isArray(content)) return [];
  return content.flatMap((part) =>
    isRecord(part) && part.type === "text" && typeof part.text === "string" && part.text.trim() !== "" ? [{ text: part.text }] : [],
  );
}

function userBlocks(content: unknown): JsonObject[] {
  if (!Array.isArray(content)) return textBlocks(content);
  const blocks: JsonObject[] = [];
  for (const part of content) {
    if (!isRecord(part)) continue;
    if (part.type === "text") blocks.push(...textBlocks([part]));
    else if (part.type === "image_url") blocks.push(imageBlock(part.image_url));
  }
  return blocks;
}

/**
 * A `data:` URL image as Converse bytes. Converse takes images inline or from S3, never from a web
 * URL, and the adapter does no I/O: a web URL is a request this upstream cannot serve.
 */
function imageBlock(imageUrl: unknown): JsonObject {
  const url = isRecord(imageUrl) ? imageUrl.url : imageUrl;
  const match = typeof url === "string" ? /^data:([^;,]+);base64,(.*)$/s.exec(url) : null;
  const format = match ? IMAGE_FORMATS[match[1]!.toLowerCase()] : undefined;
  if (!match || !format)
    throw invalidRequest("unsupported_input", "This model takes images as base64 data URLs (PNG, JPEG, GIF or WebP) only.", "messages");
  return { image: { format, source: { bytes: match[2] } } };
}

function toolUseBlocks(toolCalls: unknown): JsonObject[] {
  if (!Array.isArray(toolCalls)) return [];
  return toolCalls.flatMap((call) => {
    if (!isRecord(call) || typeof call.id !== "string" || !isRecord(call.function) || typeof call.function.name !== "string") return [];
    return [{ toolUse: { toolUseId: call.id, name: call.function.name, input: parseArguments(call.function.arguments) } }];
  });
}

/** A tool call's arguments text as the JSON object Converse wants; anything else (even invalid JSON) as {} . */
function parseArguments(text: unknown): JsonObject {
  if (typeof text !== "string") return {};
  try {
    const parsed: unknown = JSON.parse(text);
    return isRecord(parsed) ? parsed : {};
  } catch {
    return {};
  }
}

/** A tool message's content as toolResult content: its text, or one empty text when it has none. */
function toolResultContent(content: unknown): JsonObject[] {
  const blocks = textBlocks(content);
  return blocks.length > 0 ? blocks : [{ text: "" }];
}
