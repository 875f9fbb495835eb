// Loads the recorded payloads once, at build time, so serving never touches the
// disk (see fixture-files.ts: everything is deep-frozen). The OpenAI recordings
// are loaded here; each other persona has its own loader.
import { readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { loadAnthropicFixtures } from "./anthropic-fixtures";
import type { AnthropicFixtures } from "./anthropic-fixtures";
import { deepFreeze, fixtureReader } from "./fixture-files";
import type { Json } from "./json";
import { loadGeminiFixtures } from "./gemini-fixtures";
import type { GeminiFixtures } from "./gemini-fixtures";
import { loadOpenRouterFixtures } from "./openrouter-fixtures";
import type { OpenRouterFixtures } from "./openrouter-fixtures";
import { loadResponsesFixtures } from "./responses-fixtures";
import type { ResponsesFixtures } from "./responses-fixtures";
import { parseTranscript } from "./sse";

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
  /**
   * Every persona's error bodies keyed by name without extension, e.g.
   * "openai.error.429.rate_limit_exceeded", "anthropic.error.529.overloaded_error", "openrouter.error.402".
   */
  errors: Record<string, Json>;
  /** Anthropic's mid-stream error event as recorded (`event: error` + `data:` lines, blank line), sent verbatim. */
  anthropicErrorEvent: string;
  /** OpenAI Responses API (/v1/responses). */
  responses: ResponsesFixtures;
  anthropic: AnthropicFixtures;
  gemini: GeminiFixtures;
  openrouter: OpenRouterFixtures;
}

export const FIXTURES_DIR = fileURLToPath(new URL("../fixtures/", import.meta.url));

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

// One parse per fixtures directory per process: the Gemini image stream alone is
// 1.3 MB, and tests build many apps. Safe to share because everything is frozen.
const loaded = new Map<string, Fixtures>();

export function loadFixtures(dir: string = FIXTURES_DIR): Fixtures {
  let fixtures = loaded.get(dir);
  if (!fixtures) {
    fixtures = readFixtures(dir);
    loaded.set(dir, fixtures);
  }
  return fixtures;
}

/** Error fixtures of every persona: `<vendor>.error.<status>[.<code>].json`. */
const ERROR_FIXTURE = /^[a-z]+\.error\.\d{3}(\.[a-z_]+)?\.json$/;

function readFixtures(dir: string): Fixtures {
  const reader = fixtureReader(dir);
  const { text, json } = reader;
  const transcript = (name: string): StreamTranscript => {
    const events = parseTranscript(text(name));
    const usageChunk = events.find(isUsageChunk) ?? null;
    return deepFreeze({ chunks: events.filter((e) => !isUsageChunk(e)), usageChunk });
  };

  const plainStream = transcript("openai.chat.stream.sse");
  if (!plainStream.usageChunk) throw new Error("openai.chat.stream.sse must contain a usage chunk");

  const errors: Record<string, Json> = {};
  for (const file of readdirSync(dir)) {
    if (ERROR_FIXTURE.test(file)) errors[file.slice(0, -5)] = json(file);
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
    responses: loadResponsesFixtures(reader),
    anthropic: loadAnthropicFixtures(reader),
    gemini: loadGeminiFixtures(reader),
    openrouter: loadOpenRouterFixtures(reader),
  };
}
