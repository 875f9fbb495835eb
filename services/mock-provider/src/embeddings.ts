// Embeddings: one entry per input with a deterministic vector, so tests can
// compare gateway output against a recomputation. Without `dimensions` the
// recorded 3-float vector is used (matching both recorded responses); with it,
// a unit vector is derived from the input text.
import type { Fixtures } from "./fixtures";
import type { Json } from "./json";

/** One input as text: strings as-is, token arrays joined (they count as one input). */
export interface EmbeddingInput {
  text: string;
  tokens: number;
}

export class EmbeddingInputError extends Error {}

function isTokenArray(value: unknown): value is number[] {
  return Array.isArray(value) && value.every((v) => typeof v === "number");
}

/** Rough token estimate (≈4 characters per token), never below 1 per request. */
function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

export function normalizeInputs(input: unknown): EmbeddingInput[] {
  if (typeof input === "string") return [{ text: input, tokens: estimateTokens(input) }];
  if (!Array.isArray(input) || input.length === 0) {
    throw new EmbeddingInputError("'input' must be a non-empty string or array");
  }
  if (isTokenArray(input)) return [{ text: input.join(","), tokens: input.length }];
  return input.map((item) => {
    if (typeof item === "string") return { text: item, tokens: estimateTokens(item) };
    if (isTokenArray(item)) return { text: item.join(","), tokens: item.length };
    throw new EmbeddingInputError("'input' items must be strings or arrays of token ids");
  });
}

/** FNV-1a: small, stable string hash to seed the generator. */
function hash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** mulberry32: deterministic uniform [0, 1) sequence from a 32-bit seed. */
function generator(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Unit-length vector (real embeddings are normalised), rounded to float32 so the
 * float and base64 encodings of one input carry identical values.
 */
export function derivedVector(text: string, dimensions: number): number[] {
  const next = generator(hash(text));
  const raw = Array.from({ length: dimensions }, () => next() * 2 - 1);
  const norm = Math.sqrt(raw.reduce((sum, v) => sum + v * v, 0)) || 1;
  return raw.map((v) => Math.fround(v / norm));
}

export function toBase64(vector: readonly number[]): string {
  const view = new DataView(new ArrayBuffer(vector.length * 4));
  for (const [i, v] of vector.entries()) view.setFloat32(i * 4, v, true);
  return Buffer.from(view.buffer).toString("base64");
}

export function fromBase64(encoded: string): number[] {
  const bytes = Buffer.from(encoded, "base64");
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return Array.from({ length: bytes.byteLength / 4 }, (_, i) => view.getFloat32(i * 4, true));
}

export interface EmbeddingRequest {
  inputs: EmbeddingInput[];
  model: string;
  dimensions: number | undefined;
  base64: boolean;
  promptTokens: number | undefined;
}

export function recordedVector(fixtures: Fixtures): number[] {
  const first = (fixtures.embeddings.data as Json[])[0];
  return first?.embedding as number[];
}

export function embeddingsResponse(request: EmbeddingRequest, fixtures: Fixtures): Json {
  const fallback = recordedVector(fixtures);
  const fallbackBase64 = toBase64(fallback);
  const data = request.inputs.map((input, index) => {
    const vector = request.dimensions === undefined ? fallback : derivedVector(input.text, request.dimensions);
    // Field order follows the respective recording (float: object, embedding, index; base64: object, index, embedding).
    if (request.base64) {
      const embedding = request.dimensions === undefined ? fallbackBase64 : toBase64(vector);
      return { object: "embedding", index, embedding };
    }
    return { object: "embedding", embedding: vector, index };
  });
  const estimated = Math.max(
    1,
    request.inputs.reduce((sum, input) => sum + input.tokens, 0),
  );
  const promptTokens = request.promptTokens ?? estimated;
  return {
    object: "list",
    data,
    model: request.model,
    usage: { prompt_tokens: promptTokens, total_tokens: promptTokens },
  };
}
