// A request's prompt as the blocks providers cache it by, in their order: tools, then the
// system prompt, then the conversation (one block per message; Anthropic and Converse: per
// content block, where their breakpoints sit). Tokens per block = ceil(UTF-8 bytes of its
// canonical JSON / 4), the mock's stand-in for a tokenizer (prompt-cache.ts reads these).
import { isRecord, type Json } from "./json";

/** A cache breakpoint's lifetime: Anthropic `cache_control.ttl`, Converse `cachePoint.ttl`. */
export type Ttl = "5m" | "1h";

export interface PromptBlock {
  /** Canonical JSON of what the block renders (keys sorted, cache markers left out). */
  text: string;
  tokens: number;
  /** The request marks a cache breakpoint right after this block (Anthropic, Converse). */
  breakpoint?: Ttl;
}

export interface Prompt {
  blocks: PromptBlock[];
  /** The request's output limit, when it sets one. */
  maxTokens?: number;
}

/** JSON with the keys of every object sorted and undefined members left out: the same content hashes the same. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item ?? null)).join(",")}]`;
  if (isRecord(value)) {
    const keys = Object.keys(value)
      .filter((key) => value[key] !== undefined)
      .sort();
    return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(value[key])}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/** ceil(bytes / 4): about four characters a token, as the vendors' own rules of thumb say. */
export const estimateTokens = (text: string): number => Math.ceil(Buffer.byteLength(text) / 4);

function block(value: unknown, breakpoint?: Ttl): PromptBlock {
  const text = canonicalJson(value);
  const out: PromptBlock = { text, tokens: estimateTokens(text) };
  if (breakpoint !== undefined) out.breakpoint = breakpoint;
  return out;
}

const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
const count = (value: unknown): number | undefined => (typeof value === "number" && value >= 0 ? value : undefined);
const ttlOf = (marker: Json): Ttl => (marker.ttl === "1h" ? "1h" : "5m");

/** A string content is the one text block it stands for (`"hi"` renders as `[{"type":"text","text":"hi"}]`). */
const asBlocks = (content: unknown): unknown[] => (typeof content === "string" ? [{ type: "text", text: content }] : list(content));

/** A message with string content as blocks and no `cache_control` in its parts (moving a marker keeps its prefix). */
function plainMessage(message: unknown): unknown {
  if (!isRecord(message) || message.content === undefined || message.content === null) return message;
  const parts = asBlocks(message.content).map((part) => (isRecord(part) ? withoutMarker(part) : part));
  return { ...message, content: parts };
}

function withoutMarker(object: Json): Json {
  const { cache_control: _marker, ...rest } = object;
  return rest;
}

/** Anthropic's block: `cache_control` is a breakpoint after it, not content. */
function markedBlock(label: string, value: unknown): PromptBlock {
  if (!isRecord(value)) return block([label, value]);
  const marker = value.cache_control;
  return block([label, withoutMarker(value)], isRecord(marker) ? ttlOf(marker) : undefined);
}

/** Chat Completions (OpenAI, Azure, OpenRouter): tools, the output schema, then each message (system ones where they stand). */
export function chatPrompt(body: Json): Prompt | undefined {
  if (!Array.isArray(body.messages) || body.messages.length === 0) return undefined;
  const blocks = list(body.tools).map((tool) => block(["tool", tool]));
  if (body.response_format !== undefined) blocks.push(block(["response_format", body.response_format]));
  for (const message of body.messages) blocks.push(block(["message", plainMessage(message)]));
  return { blocks, maxTokens: count(body.max_completion_tokens) ?? count(body.max_tokens) };
}

/** Responses API: tools, the output format, `instructions`, then each input item (a string input is one user message). */
export function responsesPrompt(body: Json): Prompt | undefined {
  const input = typeof body.input === "string" ? [{ role: "user", content: body.input }] : body.input;
  if (!Array.isArray(input)) return undefined;
  const blocks = list(body.tools).map((tool) => block(["tool", tool]));
  if (isRecord(body.text) && body.text.format !== undefined) blocks.push(block(["format", body.text.format]));
  if (typeof body.instructions === "string") blocks.push(block(["instructions", body.instructions]));
  for (const item of input) blocks.push(block(["item", plainMessage(item)]));
  return { blocks, maxTokens: count(body.max_output_tokens) };
}

/** Anthropic Messages (also Claude on Vertex and Bedrock InvokeModel): tools, system blocks, then every content block. */
export function messagesPrompt(body: Json): Prompt | undefined {
  if (!Array.isArray(body.messages)) return undefined;
  const blocks = list(body.tools).map((tool) => markedBlock("tool", tool));
  for (const part of asBlocks(body.system)) blocks.push(markedBlock("system", part));
  for (const message of body.messages) {
    const role = isRecord(message) ? String(message.role) : "";
    for (const part of asBlocks(isRecord(message) ? message.content : undefined)) blocks.push(markedBlock(role, part));
  }
  return { blocks, maxTokens: count(body.max_tokens) };
}

/** A Gemini request field by its camelCase name or its snake_case twin (the REST API takes both). */
function field(object: unknown, camel: string, snake: string): unknown {
  return isRecord(object) ? (object[camel] ?? object[snake]) : undefined;
}

/** generateContent (Gemini API and Vertex): tools, `systemInstruction`, then each content. */
export function geminiPrompt(body: Json): Prompt | undefined {
  if (!Array.isArray(body.contents) || body.contents.length === 0) return undefined;
  const blocks = list(body.tools).map((tool) => block(["tool", tool]));
  const system = field(body, "systemInstruction", "system_instruction");
  if (system !== undefined) blocks.push(block(["system", system]));
  for (const content of body.contents) blocks.push(block(["content", content]));
  return { blocks, maxTokens: count(field(field(body, "generationConfig", "generation_config"), "maxOutputTokens", "max_output_tokens")) };
}

/** Converse items: a `{cachePoint}` item marks a breakpoint after the block before it. */
function pushItems(blocks: PromptBlock[], label: string, items: unknown[]): void {
  for (const item of items) {
    if (isRecord(item) && isRecord(item.cachePoint)) {
      const last = blocks.at(-1);
      if (last) last.breakpoint = ttlOf(item.cachePoint);
    } else blocks.push(block([label, item]));
  }
}

/** Bedrock Converse: toolConfig.tools, system, then every content block, `cachePoint` items as breakpoints. */
export function conversePrompt(body: Json): Prompt | undefined {
  if (!Array.isArray(body.messages)) return undefined;
  const blocks: PromptBlock[] = [];
  pushItems(blocks, "tool", list(isRecord(body.toolConfig) ? body.toolConfig.tools : undefined));
  pushItems(blocks, "system", list(body.system));
  for (const message of body.messages) {
    if (isRecord(message)) pushItems(blocks, String(message.role), list(message.content));
  }
  return { blocks, maxTokens: count(isRecord(body.inferenceConfig) ? body.inferenceConfig.maxTokens : undefined) };
}
