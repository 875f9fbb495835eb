// The parts of the Anthropic Messages API this adapter writes. Only what the
// translation produces is typed; answers from Anthropic are read as unknown
// JSON (json-values.ts) because a field we do not know must never break a read.

/** `cache_control` on a block: forwarded from a chat client's text part (convert-to-anthropic-messages.ts). */
export type CacheControl = Record<string, unknown>;

export interface AnthropicTextBlock {
  type: "text";
  text: string;
  cache_control?: CacheControl;
}

export interface AnthropicImageBlock {
  type: "image";
  source: { type: "base64"; media_type: string; data: string } | { type: "url"; url: string };
  cache_control?: CacheControl;
}

/** A PDF (or plain text) document, inline. */
export interface AnthropicDocumentBlock {
  type: "document";
  source: { type: "base64"; media_type: string; data: string };
  title?: string;
  cache_control?: CacheControl;
}

export interface AnthropicToolUseBlock {
  type: "tool_use";
  id: string;
  name: string;
  input: Record<string, unknown>;
}

export interface AnthropicToolResultBlock {
  type: "tool_result";
  tool_use_id: string;
  content?: string | (AnthropicTextBlock | AnthropicImageBlock | AnthropicDocumentBlock)[];
}

export type AnthropicUserBlock = AnthropicTextBlock | AnthropicImageBlock | AnthropicDocumentBlock | AnthropicToolResultBlock;
export type AnthropicAssistantBlock = AnthropicTextBlock | AnthropicToolUseBlock;
export type AnthropicBlock = AnthropicUserBlock | AnthropicAssistantBlock;

export interface AnthropicMessage {
  role: "user" | "assistant";
  content: string | AnthropicBlock[];
}

export interface AnthropicTool {
  name: string;
  description?: string;
  input_schema: Record<string, unknown>;
  strict?: true;
}

export type AnthropicToolChoice =
  | { type: "auto"; disable_parallel_tool_use?: true }
  | { type: "any"; disable_parallel_tool_use?: true }
  | { type: "tool"; name: string; disable_parallel_tool_use?: true }
  | { type: "none" };

/** The version header every request carries; 2023-06-01 is the current (and only GA) Messages version. */
export const ANTHROPIC_VERSION = "2023-06-01";
