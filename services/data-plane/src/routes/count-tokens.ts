// POST /v1/messages/count_tokens: a Messages body's input tokens, for the
// model it would be routed to. Forwarded to Anthropic for a model answered
// there; for any other an estimate, said by `x-service-estimate: true`. Errors
// in the Anthropic shape (the route's dialect); not billed, but refused as
// /v1/messages would be: the per-minute limit (a model-call route's hooks) and
// the money checks, before anything is sent upstream.
import type { FastifyInstance } from "fastify";
import { anthropicMessages } from "../dialects/anthropic-messages/anthropic-messages-dialect";
import { parseCountTokensRequest } from "../dialects/anthropic-messages/parse-request";
import type { Engine } from "../engine/engine";
import "../request-context";

export function registerCountTokensRoute(app: FastifyInstance, engine: Engine): void {
  app.post("/v1/messages/count_tokens", { config: { dialect: anthropicMessages } }, async (request, reply) => {
    const parsed = parseCountTokensRequest(request.body, request.headers);
    const count = await engine.countTokens(anthropicMessages.name, parsed, request.identity!, request.span);
    reply.header("x-service-model", count.model);
    if (count.estimated) reply.header("x-service-estimate", "true");
    return reply.send({ input_tokens: count.inputTokens });
  });
}
