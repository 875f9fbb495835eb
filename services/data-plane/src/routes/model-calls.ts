// The routes that call a model: each is a client dialect and a path. The
// engine does the rest. Served by fastify, and by the front door for their
// exact paths (app/front-door.ts), through the one handler below.
import type { FastifyInstance } from "fastify";
import { anthropicMessages } from "../dialects/anthropic-messages/anthropic-messages-dialect";
import type { ClientDialect } from "../dialects/client-dialect";
import { openAiChat } from "../dialects/openai/openai-chat-dialect";
import { openAiEmbeddings } from "../dialects/openai/openai-embeddings-dialect";
import { openAiResponses } from "../dialects/openai-responses/openai-responses-dialect";
import type { ClientReply } from "../engine/client-reply";
import type { Engine } from "../engine/engine";
import type { HookRequest } from "../request-context";

export const MODEL_CALLS: readonly (readonly [url: string, dialect: ClientDialect])[] = [
  ["/v1/chat/completions", openAiChat],
  ["/v1/embeddings", openAiEmbeddings],
  ["/v1/responses", openAiResponses],
  ["/v1/messages", anthropicMessages],
];

/** A model call, once its hooks passed: planned, then served. */
export async function serveModelCall(
  engine: Engine,
  dialect: ClientDialect,
  request: HookRequest,
  reply: ClientReply,
): Promise<ClientReply> {
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
}

export function registerModelCallRoutes(app: FastifyInstance, engine: Engine): void {
  for (const [url, dialect] of MODEL_CALLS) {
    app.post(url, { config: { dialect } }, (request, reply) => serveModelCall(engine, dialect, request, reply));
  }
}
