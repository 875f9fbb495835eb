// The routes that call a model: each is a client dialect and a path. The
// engine does the rest.
import type { FastifyInstance } from "fastify";
import { anthropicMessages } from "../dialects/anthropic-messages/anthropic-messages-dialect";
import type { ClientDialect } from "../dialects/client-dialect";
import { openAiChat } from "../dialects/openai/openai-chat-dialect";
import { openAiEmbeddings } from "../dialects/openai/openai-embeddings-dialect";
import { openAiResponses } from "../dialects/openai-responses/openai-responses-dialect";
import type { Engine } from "../engine/engine";
import "../request-context";

const MODEL_CALLS: [url: string, dialect: ClientDialect][] = [
  ["/v1/chat/completions", openAiChat],
  ["/v1/embeddings", openAiEmbeddings],
  ["/v1/responses", openAiResponses],
  ["/v1/messages", anthropicMessages],
];

export function registerModelCallRoutes(app: FastifyInstance, engine: Engine): void {
  for (const [url, dialect] of MODEL_CALLS) {
    app.post(url, { config: { dialect } }, async (request, reply) => {
      const call = await engine.prepare(dialect, {
        requestId: request.id,
        identity: request.identity!,
        body: request.body,
        headers: request.headers,
        bodyBytes: Number(request.headers["content-length"]) || undefined,
        readAt: request.readAt,
        span: request.span,
      });
      request.call = call;
      return engine.serve(call, reply);
    });
  }
}
