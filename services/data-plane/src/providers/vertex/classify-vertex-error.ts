// The categories of a Vertex AI error body, from its structured fields only,
// never its message (docs/errors.md). Vertex answers in Google's
// google.rpc.Status envelope `{"error":{"code","message","status","details"}}`
// (an array of one when the stream form without `alt=sse` fails); Claude's
// rawPredict may pass Anthropic's own envelope through `{"type":"error","error":{"type"}}`.
//
// Only NOT_FOUND names a category: the one resource a call names is the model in
// its path (vertex.error.404.publisher_model_not_found.json). The other statuses
// say what the HTTP status already tells the engine, and no caller-facing category fits:
//   RESOURCE_EXHAUSTED (429) rate limited; UNAVAILABLE (503) transient;
//   UNAUTHENTICATED (401), PERMISSION_DENIED (403) the path's own credential;
//   INVALID_ARGUMENT, FAILED_PRECONDITION (400) the caller's request, with no
//   ErrorInfo reason telling an over-long prompt from a bad parameter.
import type { UpstreamErrorCategory } from "../../errors";
import { classifyAnthropicError } from "../anthropic/classify-anthropic-error";
import { classifyGeminiError } from "../gemini/classify-error";
import { isObject } from "../gemini/wire-types";

export function classifyVertexError(body: unknown): UpstreamErrorCategory | undefined {
  const envelope = Array.isArray(body) ? body[0] : body;
  if (isObject(envelope) && envelope.type === "error") return classifyAnthropicError(envelope);
  return classifyGeminiError(envelope);
}
