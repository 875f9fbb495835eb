// generateContent / streamGenerateContent: pick the recorded answer by request
// shape, then rewrite only what must differ per request (modelVersion,
// responseId, and usageMetadata when scripted).
import { insertAfter, isRecord, type Json } from "./json";
import type { GeminiKind } from "./gemini-fixtures";
import type { TokenCounts } from "./usage";

export interface ResponseIdentity {
  /** responseId */
  id: string;
  /** modelVersion: the model named in the path. */
  model: string;
}

const snakeCase = (name: string) => name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);

/** A request field by its camelCase name or its snake_case twin (the REST API accepts both). */
function field(object: unknown, name: string): unknown {
  if (!isRecord(object)) return undefined;
  return object[name] ?? object[snakeCase(name)];
}

function asksForImage(config: unknown): boolean {
  const modalities = field(config, "responseModalities");
  return Array.isArray(modalities) && modalities.some((m) => typeof m === "string" && m.toUpperCase() === "IMAGE");
}

function declaresFunctions(tools: unknown): boolean {
  if (!Array.isArray(tools)) return false;
  return tools.some((tool) => {
    const declarations = field(tool, "functionDeclarations");
    return Array.isArray(declarations) && declarations.length > 0;
  });
}

function asksForJson(config: unknown): boolean {
  return (
    field(config, "responseJsonSchema") !== undefined ||
    field(config, "responseSchema") !== undefined ||
    field(config, "responseMimeType") === "application/json"
  );
}

/** The last content hands function results back (functionResponse parts): the model answers in text. */
function endsWithFunctionResponse(contents: unknown): boolean {
  if (!Array.isArray(contents)) return false;
  const parts = field(contents.at(-1), "parts");
  return Array.isArray(parts) && parts.some((part) => field(part, "functionResponse") !== undefined);
}

export function chooseGeminiKind(body: Json): GeminiKind {
  const config = field(body, "generationConfig");
  // Before the tools rule, as Anthropic's tool_result rule: an agent loop that keeps sending its tools ends.
  if (endsWithFunctionResponse(field(body, "contents"))) return "plain";
  if (asksForImage(config)) return "image";
  if (declaresFunctions(field(body, "tools"))) return "tools";
  if (asksForJson(config)) return "json_schema";
  if (field(body, "systemInstruction") !== undefined) return "system_instruction";
  return "plain";
}

/** A one-entry details list follows its total; longer ones (several modalities) are kept as recorded. */
function followTotal(details: unknown, total: number): unknown {
  return Array.isArray(details) && details.length === 1 && isRecord(details[0]) ? [{ ...details[0], tokenCount: total }] : details;
}

/**
 * Scripted usage: promptTokenCount = prompt, candidatesTokenCount = completion
 * on the final chunk (intermediate chunks: as recorded, capped at it),
 * thoughtsTokenCount = reasoning (apart from the candidates, as Gemini counts
 * them; dropped when none is scripted, so the output billed is exactly the
 * scripted completion), cachedContentTokenCount = cached (part of the prompt),
 * and totalTokenCount their sum. The prompt-side counts and the thoughts are on
 * every chunk, as Gemini repeats them (gemini.streamGenerateContent.thinking.sse);
 * a recorded key keeps its place, a new one goes where the recordings have it:
 * cachedContentTokenCount after totalTokenCount (gemini.generateContent.cached.response.json),
 * thoughtsTokenCount last (gemini.streamGenerateContent.thinking.sse).
 */
function scriptedUsage(recorded: unknown, usage: TokenCounts, final: boolean): Json {
  let out: Json = { ...(isRecord(recorded) ? recorded : {}) };
  if (usage.reasoning_tokens === undefined) delete out.thoughtsTokenCount;
  out.promptTokenCount = usage.prompt_tokens;
  if (out.promptTokensDetails !== undefined) out.promptTokensDetails = followTotal(out.promptTokensDetails, usage.prompt_tokens);
  if (final || typeof out.candidatesTokenCount === "number") {
    const candidates = final ? usage.completion_tokens : Math.min(out.candidatesTokenCount as number, usage.completion_tokens);
    out.candidatesTokenCount = candidates;
    if (out.candidatesTokensDetails !== undefined) out.candidatesTokensDetails = followTotal(out.candidatesTokensDetails, candidates);
  }
  const candidates = typeof out.candidatesTokenCount === "number" ? out.candidatesTokenCount : 0;
  out.totalTokenCount = usage.prompt_tokens + candidates + (usage.reasoning_tokens ?? 0);
  if (usage.cached_tokens !== undefined) out = insertAfter(out, "totalTokenCount", { cachedContentTokenCount: usage.cached_tokens });
  if (usage.reasoning_tokens !== undefined) out.thoughtsTokenCount = usage.reasoning_tokens;
  return out;
}

/** One response or chunk with this request's identity; key order as recorded. */
export function rewriteResponse(recorded: Json, identity: ResponseIdentity, usage: TokenCounts | undefined, final: boolean): Json {
  const response: Json = { ...recorded, modelVersion: identity.model, responseId: identity.id };
  if (usage) response.usageMetadata = scriptedUsage(recorded.usageMetadata, usage, final);
  return response;
}

export function streamResponses(chunks: readonly Json[], identity: ResponseIdentity, usage: TokenCounts | undefined): Json[] {
  return chunks.map((chunk, index) => rewriteResponse(chunk, identity, usage, index === chunks.length - 1));
}
