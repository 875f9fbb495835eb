// One GenerateContentResponse from a stream of them: the non-stream answer to
// an image request (the only image recording is a stream), and the answer of
// every shape under the script `assembled`.
import { isRecord, type Json } from "./json";

/** A part holding only text (thought parts and the like are not joined). */
const isPlainText = (part: Json): boolean => typeof part.text === "string" && Object.keys(part).length === 1;

/**
 * One response from a stream: consecutive text parts joined in order, other parts
 * (functionCall, inlineData, thoughts) kept; finishReason, usageMetadata and the rest from the last chunk.
 */
export function assembleStream(chunks: readonly Json[]): Json {
  const parts: Json[] = [];
  for (const chunk of chunks) {
    const candidate = (chunk.candidates as Json[] | undefined)?.[0];
    const content = isRecord(candidate?.content) ? candidate.content : {};
    for (const part of (content.parts as Json[] | undefined) ?? []) {
      const previous = parts[parts.length - 1];
      if (previous && isPlainText(part) && isPlainText(previous)) {
        parts[parts.length - 1] = { text: String(previous.text) + String(part.text) };
      } else {
        parts.push({ ...part });
      }
    }
  }
  const last = chunks[chunks.length - 1] ?? {};
  const lastCandidate = ((last.candidates as Json[] | undefined)?.[0] ?? {}) as Json;
  const role = isRecord(lastCandidate.content) ? lastCandidate.content.role : "model";
  return { ...last, candidates: [{ ...lastCandidate, content: { parts, role } }] };
}
