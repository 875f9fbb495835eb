// OpenAI chat `messages` -> Anthropic `system` + `messages`.
//
// Anthropic keeps instructions out of the conversation (one top-level
// `system`), knows only user and assistant turns, and carries tool calls and
// tool results as content blocks instead of message fields. So:
//   system / developer          -> text blocks of `system`, in order
//   user                        -> user turn (text and image blocks)
//   assistant                   -> assistant turn (text, then one tool_use block per tool call)
//   tool                        -> tool_result block in a user turn
// Consecutive turns of one role are merged into one (several tool results
// answering one assistant turn become one user turn, as Anthropic expects).
// Anything else (legacy `function` role, audio and file parts, `name`,
// assistant `refusal`/`reasoning`) is dropped: callers' extra fields are never an error.
import type {
  AnthropicAssistantBlock,
  AnthropicBlock,
  AnthropicDocumentBlock,
  AnthropicImageBlock,
  AnthropicMessage,
  AnthropicTextBlock,
  AnthropicToolResultBlock,
  AnthropicToolUseBlock,
  AnthropicUserBlock,
  CacheControl,
} from "./anthropic-wire-types";
import { alternatingTurns } from "../alternating-turns";
import { isRecord, type JsonObject } from "./json-values";

export interface AnthropicConversation {
  /** Absent when the caller sent no system or developer text. */
  system: string | AnthropicTextBlock[] | undefined;
  messages: AnthropicMessage[];
}

export function convertToAnthropicMessages(messages: unknown): AnthropicConversation {
  const { system, turns } = alternatingTurns<AnthropicBlock>(messages, {
    system: textBlocks,
    user: userBlocks,
    assistant: assistantBlocks,
    tool: toolResultBlocks,
  });
  const texts = system as AnthropicTextBlock[];
  return {
    system: texts.length === 0 ? undefined : texts.length === 1 && !texts[0]!.cache_control ? texts[0]!.text : texts,
    messages: turns.map(({ role, blocks }) => ({ role, content: compactContent(blocks) })),
  };
}

/** One plain text block is sent as a string, the shape Anthropic's own examples use; anything else as blocks. */
function compactContent<Block extends AnthropicBlock>(blocks: Block[]): string | Block[] {
  const only = blocks.length === 1 ? blocks[0] : undefined;
  return only?.type === "text" && !only.cache_control ? only.text : blocks;
}

function textBlock(part: JsonObject): AnthropicTextBlock | undefined {
  if (typeof part.text !== "string" || part.text.length === 0) return undefined; // Anthropic rejects empty text blocks
  const block: AnthropicTextBlock = { type: "text", text: part.text };
  // cache_control on a text part (OpenRouter's prompt caching for chat clients) is forwarded as
  // Anthropic reads it: its writes are priced (cache_write_5m / 1h) and held for (billing/worst-case.ts).
  const cacheControl = anthropicCacheControl(part.cache_control);
  if (cacheControl) block.cache_control = cacheControl;
  return block;
}

/** `{type: "ephemeral"}`, with `ttl` "5m" or "1h" when given; anything else is not Anthropic's and is dropped. */
function anthropicCacheControl(value: unknown): CacheControl | undefined {
  if (!isRecord(value) || value.type !== "ephemeral") return undefined;
  if (value.ttl === undefined) return { type: "ephemeral" };
  return value.ttl === "5m" || value.ttl === "1h" ? { type: "ephemeral", ttl: value.ttl } : undefined;
}

/** Text from a string or from the `text` parts of an array; other parts are dropped. */
function textBlocks(content: unknown): AnthropicTextBlock[] {
  if (typeof content === "string") return content.length > 0 ? [{ type: "text", text: content }] : [];
  if (!Array.isArray(content)) return [];
  const blocks: AnthropicTextBlock[] = [];
  for (const part of content) {
    if (!isRecord(part) || part.type !== "text") continue;
    const block = textBlock(part);
    if (block) blocks.push(block);
  }
  return blocks;
}

function userBlocks(content: unknown): (AnthropicTextBlock | AnthropicImageBlock | AnthropicDocumentBlock)[] {
  if (!Array.isArray(content)) return textBlocks(content);
  const blocks: (AnthropicTextBlock | AnthropicImageBlock | AnthropicDocumentBlock)[] = [];
  for (const part of content) {
    if (!isRecord(part)) continue;
    const block =
      part.type === "text"
        ? textBlock(part)
        : part.type === "image_url"
          ? imageBlock(part)
          : part.type === "file"
            ? documentBlock(part)
            : undefined;
    if (block) blocks.push(block);
  }
  return blocks;
}

/** A `file` part with inline data (a data: URL, e.g. a PDF) as a document block; a `file_id` means nothing to Anthropic and is dropped. */
function documentBlock(part: JsonObject): AnthropicDocumentBlock | undefined {
  const file = part.file;
  if (!isRecord(file) || typeof file.file_data !== "string") return undefined;
  const source = dataUrlSource(file.file_data);
  if (source?.type !== "base64") return undefined;
  return { type: "document", source, ...(typeof file.filename === "string" ? { title: file.filename } : {}) };
}

/**
 * An `image_url` part as an image block: a data: URL becomes a base64 source
 * (Anthropic wants the media type and the bare base64 text apart), an http(s)
 * URL a url source that Anthropic fetches itself. OpenAI's `detail` has no
 * Anthropic counterpart and is dropped.
 */
function imageBlock(part: JsonObject): AnthropicImageBlock | undefined {
  const imageUrl = part.image_url;
  const url = typeof imageUrl === "string" ? imageUrl : isRecord(imageUrl) && typeof imageUrl.url === "string" ? imageUrl.url : undefined;
  if (url === undefined) return undefined;
  let source: AnthropicImageBlock["source"] | undefined;
  if (/^https?:\/\//i.test(url)) source = { type: "url", url };
  else source = dataUrlSource(url);
  if (!source) return undefined;
  const block: AnthropicImageBlock = { type: "image", source };
  return block;
}

function dataUrlSource(url: string): AnthropicImageBlock["source"] | undefined {
  // data:[<media type>][;param]*[;base64],<data>  (RFC 2397)
  const match = /^data:([^;,]*)((?:;[^;,]*)*),(.*)$/is.exec(url);
  if (!match) return undefined;
  const [, mediaType = "", parameters = "", payload = ""] = match;
  const isBase64 = parameters.split(";").some((parameter) => parameter.toLowerCase() === "base64");
  // A URL-encoded (non-base64) payload is re-encoded: Anthropic only takes base64.
  // Anthropic checks the media type itself; a missing or unsupported one comes back as its own invalid_request_error.
  const data = isBase64 ? payload : Buffer.from(safeDecodeUri(payload), "utf8").toString("base64");
  return { type: "base64", media_type: mediaType.toLowerCase(), data };
}

function safeDecodeUri(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

function assistantBlocks(message: JsonObject): AnthropicAssistantBlock[] {
  // Text first, then tool calls: the order Anthropic itself answers in.
  const blocks: AnthropicAssistantBlock[] = textBlocks(message.content);
  if (!Array.isArray(message.tool_calls)) return blocks;
  for (const call of message.tool_calls) {
    if (!isRecord(call) || (call.type !== undefined && call.type !== "function") || !isRecord(call.function)) continue;
    const { name, arguments: args } = call.function;
    if (typeof call.id !== "string" || typeof name !== "string") continue;
    const block: AnthropicToolUseBlock = { type: "tool_use", id: call.id, name, input: toolInput(args) };
    blocks.push(block);
  }
  return blocks;
}

/**
 * OpenAI carries tool arguments as JSON text, Anthropic as a JSON object.
 * Arguments that are not a JSON object (empty, truncated by a length stop,
 * or a bare value) become {}: Anthropic accepts nothing else, and the tool
 * result that follows still tells the model what happened.
 */
export function toolInput(args: unknown): Record<string, unknown> {
  if (isRecord(args)) return args;
  if (typeof args !== "string") return {};
  try {
    const parsed: unknown = JSON.parse(args);
    return isRecord(parsed) ? parsed : {};
  } catch {
    return {};
  }
}

function toolResultBlocks(message: JsonObject): AnthropicUserBlock[] {
  if (typeof message.tool_call_id !== "string") return [];
  const block: AnthropicToolResultBlock = { type: "tool_result", tool_use_id: message.tool_call_id };
  const content = userBlocks(message.content);
  // An empty result is a valid tool_result with no content; it still answers the tool_use.
  if (content.length > 0) block.content = compactContent(content);
  return [block];
}
