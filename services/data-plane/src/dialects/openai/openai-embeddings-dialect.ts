// POST /v1/embeddings bodies: the OpenAI embeddings dialect (the shared
// representation of embeddings). Never streamed.
import { invalidRequest } from "../../errors";
import type { AnswerContext, ClientDialect, ClientRequest } from "../client-dialect";
import { checkEmbeddingsFields } from "./embeddings-fields";
import { openAiErrorBody, openAiErrorFrame } from "./openai-errors";
import { requireObjectBody } from "./request-body";
import { usageWithCost } from "./usage-with-cost";

export const openAiEmbeddings: ClientDialect = {
  name: "openai-embeddings",
  operation: "embeddings",
  routingHeaders: false,

  parse(raw: unknown): ClientRequest {
    const body = requireObjectBody(raw);
    if (body.input === undefined) throw invalidRequest("invalid_body", "input is required.", "input");
    checkEmbeddingsFields(body);
    return { operation: "embeddings", body, original: body, stream: false, service: undefined };
  },

  answer(answer: Record<string, unknown>, context: AnswerContext): Record<string, unknown> {
    if (context.request.body.encoding_format === "base64") encodeBase64(answer);
    answer.usage = usageWithCost(context.usage, context.tokens, context.debitedNano);
    return answer;
  },

  streamRenderer: () => {
    throw new Error("embeddings are never streamed");
  },
  errorBody: openAiErrorBody,
  errorFrame: openAiErrorFrame,
};

/**
 * `encoding_format: "base64"` asks for little-endian float32 vectors in base64, as OpenAI sends
 * them. Upstreams without that option (Gemini) answer with float arrays, encoded here; vectors
 * already in base64 are left alone.
 */
function encodeBase64(answer: Record<string, unknown>): void {
  if (!Array.isArray(answer.data)) return;
  for (const item of answer.data as { embedding?: unknown }[]) {
    if (!Array.isArray(item.embedding)) continue;
    item.embedding = Buffer.from(new Float32Array(item.embedding as number[]).buffer).toString("base64");
  }
}
