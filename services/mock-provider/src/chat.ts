// Chat Completions: pick the recorded conversation that matches the request's
// shape, then rewrite only what must differ per request (id, created, model,
// and usage when scripted). Everything else goes out exactly as recorded.
import type { ChatKind, Fixtures, StreamTranscript } from "./fixtures";
import type { Json } from "./json";
import { applyUsage, withServiceTier } from "./usage";
import type { TokenCounts } from "./usage";

export interface Identity {
  id: string;
  created: number;
  model: string;
}

function hasImagePart(messages: unknown): boolean {
  if (!Array.isArray(messages)) return false;
  return messages.some(
    (message) =>
      Array.isArray((message as Json | null)?.content) &&
      ((message as Json).content as unknown[]).some((part) => (part as Json | null)?.type === "image_url"),
  );
}

/** The conversation hands tool results back (its last message is a tool message): the model answers in text. */
function endsWithToolResult(messages: unknown): boolean {
  return Array.isArray(messages) && (messages.at(-1) as Json | null)?.role === "tool";
}

export function chooseChatKind(body: Json): ChatKind {
  // First, as Anthropic's tool_result rule: an agent loop that keeps sending its tools ends.
  if (endsWithToolResult(body.messages)) return "plain";
  const tools = body.tools;
  if (Array.isArray(tools) && tools.length > 0) {
    return body.parallel_tool_calls !== false && tools.length >= 2 ? "tools_parallel" : "tools";
  }
  if ((body.response_format as Json | undefined)?.type === "json_schema") return "json_schema";
  if (hasImagePart(body.messages)) return "image_input";
  return "plain";
}

/** Spreading over the recorded object keeps its key order; only the values change. */
function rewrite(chunk: Json, identity: Identity): Json {
  return { ...chunk, id: identity.id, created: identity.created, model: identity.model };
}

export function chatResponse(recorded: Json, identity: Identity, usage: TokenCounts | undefined): Json {
  const response = rewrite(recorded, identity);
  if (usage) response.usage = applyUsage(recorded.usage, usage);
  return withServiceTier(response, usage, "usage");
}

/** The usage-only chunk, synthesised from the plain stream's when the transcript has none. */
export function usageChunkFor(transcript: StreamTranscript, fixtures: Fixtures): Json {
  if (transcript.usageChunk) return transcript.usageChunk;
  const first = transcript.chunks[0];
  const chunk: Json = { ...fixtures.usageChunkTemplate };
  if (first && "system_fingerprint" in first) chunk.system_fingerprint = first.system_fingerprint;
  else delete chunk.system_fingerprint;
  return chunk;
}

/**
 * The stream's JSON chunks in send order. The usage chunk is included only
 * with `includeUsage` (OpenAI: `stream_options.include_usage: true`), as the real API does.
 */
export function streamChunks(
  transcript: StreamTranscript,
  fixtures: Fixtures,
  identity: Identity,
  includeUsage: boolean,
  usage: TokenCounts | undefined,
): Json[] {
  const chunks = transcript.chunks.map((chunk) => rewrite(chunk, identity));
  if (includeUsage) {
    const recorded = usageChunkFor(transcript, fixtures);
    const chunk = rewrite(recorded, identity);
    if (usage) chunk.usage = applyUsage(recorded.usage, usage);
    chunks.push(chunk);
  }
  // OpenAI writes the tier on every chunk.
  return chunks.map((chunk) => withServiceTier(chunk, usage, "model"));
}
