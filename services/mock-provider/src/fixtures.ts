// Loads the recorded payloads once, at build time, so serving never touches the
// disk. Everything is deep-frozen: responses share nested objects with the
// fixtures, and a frozen fixture cannot be corrupted by one request (or by a
// test poking at a log entry) for the next.
import { readFileSync, readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parseTranscript } from "./sse";

export type Json = Record<string, unknown>;

/** Which recorded conversation answers a chat request. */
export type ChatKind = "plain" | "tools" | "tools_parallel" | "json_schema" | "image_input";

export interface StreamTranscript {
  /** Chunks before the usage-only chunk, in recorded order. */
  chunks: readonly Json[];
  /** The recorded usage-only chunk (`choices: []`), or null if the recording has none. */
  usageChunk: Json | null;
}

export interface Fixtures {
  chat: Record<ChatKind, Json>;
  stream: Record<ChatKind, StreamTranscript>;
  /** The plain stream's usage chunk: the shape used when a transcript lacks one. */
  usageChunkTemplate: Json;
  embeddings: Json;
  embeddingsBase64: Json;
  /** Error bodies keyed by name without extension, e.g. "openai.error.429.rate_limit_exceeded". */
  errors: Record<string, Json>;
  /** Anthropic's mid-stream error event as recorded (`event: error` + `data:` lines, blank line), sent verbatim. */
  anthropicErrorEvent: string;
}

export const FIXTURES_DIR = fileURLToPath(new URL("../fixtures/", import.meta.url));

function deepFreeze<T>(value: T): T {
  if (value && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

function isUsageChunk(chunk: Json): boolean {
  return Array.isArray(chunk.choices) && chunk.choices.length === 0 && chunk.usage != null;
}

/**
 * The `event: error` block of an Anthropic transcript, byte for byte (its JSON
 * is spaced as documented, not compacted), terminated by a blank line.
 */
export function anthropicErrorEventOf(transcript: string): string {
  const block = transcript
    .replace(/\r\n/g, "\n")
    .split("\n\n")
    .find((candidate) => candidate.split("\n").includes("event: error"));
  if (!block) throw new Error("anthropic.messages.stream.error.sse must contain an `event: error` block");
  return `${block}\n\n`;
}

export function loadFixtures(dir: string = FIXTURES_DIR): Fixtures {
  const text = (name: string) => readFileSync(dir + name, "utf8");
  const json = (name: string) => deepFreeze(JSON.parse(text(name)) as Json);
  const transcript = (name: string): StreamTranscript => {
    const events = parseTranscript(text(name));
    const usageChunk = events.find(isUsageChunk) ?? null;
    return deepFreeze({ chunks: events.filter((e) => !isUsageChunk(e)), usageChunk });
  };

  const plainStream = transcript("openai.chat.stream.sse");
  if (!plainStream.usageChunk) throw new Error("openai.chat.stream.sse must contain a usage chunk");

  const errors: Record<string, Json> = {};
  for (const file of readdirSync(dir)) {
    if (file.startsWith("openai.error.") && file.endsWith(".json")) errors[file.slice(0, -5)] = json(file);
  }

  return {
    chat: {
      plain: json("openai.chat.response.json"),
      tools: json("openai.chat.tools.response.json"),
      tools_parallel: json("openai.chat.tools_parallel.response.json"),
      json_schema: json("openai.chat.json_schema.response.json"),
      image_input: json("openai.chat.image_input.response.json"),
    },
    stream: {
      plain: plainStream,
      tools: transcript("openai.chat.stream.tools.sse"),
      tools_parallel: transcript("openai.chat.stream.tools_parallel.sse"),
      json_schema: transcript("openai.chat.stream.json_schema.sse"),
      // No image-input stream was recorded; the plain text stream stands in.
      image_input: plainStream,
    },
    usageChunkTemplate: plainStream.usageChunk,
    embeddings: json("openai.embeddings.response.json"),
    embeddingsBase64: json("openai.embeddings.batch_base64.response.json"),
    errors,
    anthropicErrorEvent: anthropicErrorEventOf(text("anthropic.messages.stream.error.sse")),
  };
}
