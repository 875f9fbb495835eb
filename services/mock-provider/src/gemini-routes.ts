// The Gemini persona: POST /v1beta/models/{model}:{method} for generateContent,
// streamGenerateContent (?alt=sse: SSE; otherwise one JSON array, as the real
// API), embedContent and batchEmbedContents. Auth and script resolution happen
// in exchange-hook.ts / personas.ts.
import type { FastifyInstance } from "fastify";
import { assembleStream } from "./assemble-gemini";
import { exchangeOf } from "./exchange-hook";
import { chooseGeminiKind, rewriteResponse, streamResponses } from "./gemini-content";
import { batchEmbedContentsResponse, embedContentResponse, GeminiRequestError } from "./gemini-embeddings";
import { geminiArrayFraming, geminiArrayFrames, geminiSseFrames, geminiSseFraming } from "./gemini-errors";
import { isRecord, type Json } from "./json";
import { beforeHeaders, sendJson, sendStream, sendSuccessJson } from "./respond";
import type { Exchange } from "./respond";
import { geminiTarget } from "./personas";
import type { MockState } from "./state";
import { resolveUsage } from "./usage";

export function registerGeminiRoutes(app: FastifyInstance, state: MockState): void {
  const { gemini } = state.fixtures;

  async function generate(ex: Exchange, body: Json, model: string, stream: boolean, sse: boolean): Promise<void> {
    const contents = body.contents;
    if (!Array.isArray(contents) || contents.length === 0) {
      sendJson(ex, 400, ex.wire.invalidRequest("* GenerateContentRequest.contents: contents is not specified\n", ex.requestId));
      return;
    }
    const kind = chooseGeminiKind(body);
    const identity = { id: `resp-mock-${state.nextCompletionId()}`, model };
    const usage = resolveUsage(ex.script?.usage);
    if (!stream) {
      const response = ex.script?.assembled
        ? assembleStream(streamResponses(gemini.streams[kind], identity, usage))
        : rewriteResponse(gemini.responses[kind], identity, usage, true);
      sendSuccessJson(ex, response);
      return;
    }
    const responses = streamResponses(gemini.streams[kind], identity, usage);
    if (sse) await sendStream(ex, geminiSseFrames(responses), geminiSseFraming);
    else await sendStream(ex, geminiArrayFrames(responses), geminiArrayFraming);
  }

  app.post<{ Querystring: { alt?: string } }>("/v1beta/models/*", async (request, reply) => {
    const ex = exchangeOf(state, request);
    const target = geminiTarget(request.url);
    if (!target) {
      sendJson(ex, 404, ex.wire.notFound(request.method, request.url, ex.requestId));
      return reply;
    }
    const { model, method } = target;
    if (!(await beforeHeaders(ex))) return reply;
    const body = request.body;
    if (!isRecord(body)) {
      sendJson(ex, 400, ex.wire.invalidRequest("Invalid JSON payload received. Expected an object.", ex.requestId));
      return reply;
    }
    try {
      if (method === "embedContent") sendSuccessJson(ex, embedContentResponse(body, model, gemini.embedding));
      else if (method === "batchEmbedContents") sendSuccessJson(ex, batchEmbedContentsResponse(body, model, gemini.batchEmbeddings));
      else await generate(ex, body, model, method === "streamGenerateContent", request.query.alt === "sse");
    } catch (error) {
      if (!(error instanceof GeminiRequestError)) throw error;
      sendJson(ex, 400, ex.wire.invalidRequest(error.message, ex.requestId));
    }
    return reply;
  });
}
