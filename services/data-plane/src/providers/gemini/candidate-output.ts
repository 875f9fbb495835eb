// What one Gemini candidate's parts say, in OpenAI terms: shared by the
// whole-answer and the streamed translations so both read parts identically.
import { isObject } from "./wire-types";

/** One candidate's answer in OpenAI terms. */
export interface CandidateOutput {
  /** Non-thought text parts joined, or null when there was none. */
  content: string | null;
  /** Thought-summary text joined, or null. */
  reasoning: string | null;
  toolCalls: { id: string; name: string; arguments: string }[];
  images: { mimeType: string; data: string }[];
}

/**
 * Reads a candidate's `content.parts`. Thought summaries (`thought: true`) are
 * kept apart from the answer text; function calls keep Gemini's id when it
 * gives one, else get `call_<idBase>_<n>`, n counting the candidate's calls
 * from `firstCallIndex` (a stream's calls arrive over several events), so the
 * same answer gets the same ids streamed or not. Only image `inlineData`
 * counts as generated images; other part kinds are not part of a chat answer.
 */
export function readCandidateParts(content: unknown, idBase: string, firstCallIndex = 0): CandidateOutput {
  const output: CandidateOutput = { content: null, reasoning: null, toolCalls: [], images: [] };
  const parts = isObject(content) && Array.isArray(content.parts) ? content.parts : [];
  for (const part of parts) {
    if (!isObject(part)) continue;
    if (typeof part.text === "string") {
      if (part.thought === true) output.reasoning = (output.reasoning ?? "") + part.text;
      else output.content = (output.content ?? "") + part.text;
    }
    const call = part.functionCall;
    if (isObject(call) && typeof call.name === "string") {
      const index = firstCallIndex + output.toolCalls.length;
      const id = typeof call.id === "string" && call.id !== "" ? call.id : `call_${idBase}_${index}`;
      output.toolCalls.push({ id, name: call.name, arguments: JSON.stringify(isObject(call.args) ? call.args : {}) });
    }
    const inline = part.inlineData;
    if (
      isObject(inline) &&
      typeof inline.mimeType === "string" &&
      inline.mimeType.startsWith("image/") &&
      typeof inline.data === "string"
    ) {
      output.images.push({ mimeType: inline.mimeType, data: inline.data });
    }
  }
  return output;
}

/** A generated image in OpenRouter's `message.images[]` shape: a data URL. */
export function imageEntry(image: { mimeType: string; data: string }, index: number): Record<string, unknown> {
  return { type: "image_url", image_url: { url: `data:${image.mimeType};base64,${image.data}` }, index };
}

/** The OpenAI chat id: Gemini's `responseId` when it sent one (the same on every chunk of a stream), else the gateway's. */
export function answerIds(json: Record<string, unknown>, fallbackId: string): { id: string; callIdBase: string } {
  const responseId = typeof json.responseId === "string" && json.responseId !== "" ? json.responseId : undefined;
  return responseId
    ? { id: `chatcmpl-${responseId}`, callIdBase: responseId }
    : { id: fallbackId, callIdBase: fallbackId.replace(/^chatcmpl-/, "") };
}
