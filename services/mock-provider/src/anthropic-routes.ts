// The Anthropic persona: POST /v1/messages and /v1/messages/count_tokens (auth,
// anthropic-version and script resolution happen in exchange-hook.ts / personas.ts).
import type { FastifyInstance } from "fastify";
import { anthropicStreamFraming } from "./anthropic-errors";
import { chooseAnthropicKind, messageResponse, messageStreamEvents, messageStreamFrames } from "./anthropic-messages";
import { assembleMessage } from "./assemble-anthropic";
import { exchangeOf } from "./exchange-hook";
import { isRecord, type Json } from "./json";
import { beforeHeaders, sendJson, sendStream, sendSuccessJson } from "./respond";
import type { Exchange } from "./respond";
import type { MockState } from "./state";
import { resolveUsage } from "./usage";

/** The first thing the real API would refuse in this body, as its message; undefined when servable. */
function invalidBody(body: unknown): string | undefined {
  if (!isRecord(body)) return "There was an issue with the request body: the body must be a JSON object.";
  if (typeof body.model !== "string" || body.model === "") return "model: Field required";
  if (typeof body.max_tokens !== "number") return "max_tokens: Field required";
  if (!Array.isArray(body.messages)) return "messages: Field required";
  return undefined;
}

/** count_tokens takes the Messages fields minus max_tokens/stream: model and messages are required. */
function invalidCountBody(body: unknown): string | undefined {
  if (!isRecord(body)) return "There was an issue with the request body: the body must be a JSON object.";
  if (typeof body.model !== "string" || body.model === "") return "model: Field required";
  if (!Array.isArray(body.messages)) return "messages: Field required";
  return undefined;
}

/** A deterministic estimate: ceil(characters of the JSON of system, messages and tools / 4), at least 1. */
export function estimateInputTokens(body: Json): number {
  const text = JSON.stringify({ system: body.system, messages: body.messages, tools: body.tools });
  return Math.max(1, Math.ceil(text.length / 4));
}

export function registerAnthropicRoutes(app: FastifyInstance, state: MockState): void {
  const { anthropic } = state.fixtures;
  const framing = anthropicStreamFraming(state.fixtures.anthropicErrorEvent);

  app.post("/v1/messages", async (request, reply) => {
    const ex: Exchange = exchangeOf(state, request);
    if (!(await beforeHeaders(ex))) return reply;
    const problem = invalidBody(request.body);
    if (problem !== undefined) {
      sendJson(ex, 400, ex.wire.invalidRequest(problem, ex.requestId));
      return reply;
    }
    const body = request.body as Json & { model: string };
    const kind = chooseAnthropicKind(body);
    const identity = { id: `msg_mock_${state.nextCompletionId()}`, model: body.model };
    const usage = resolveUsage(ex.script?.usage);
    if (body.stream === true) {
      await sendStream(ex, messageStreamFrames(anthropic.streams[kind], identity, usage), framing);
      return reply;
    }
    const response = ex.script?.assembled
      ? assembleMessage(messageStreamEvents(anthropic.streams[kind], identity, usage))
      : messageResponse(anthropic.messages[kind], identity, usage);
    sendSuccessJson(ex, response);
    return reply;
  });

  app.post("/v1/messages/count_tokens", async (request, reply) => {
    const ex: Exchange = exchangeOf(state, request);
    if (!(await beforeHeaders(ex))) return reply;
    const problem = invalidCountBody(request.body);
    if (problem !== undefined) {
      sendJson(ex, 400, ex.wire.invalidRequest(problem, ex.requestId));
      return reply;
    }
    const scripted = resolveUsage(ex.script?.usage)?.prompt_tokens;
    sendSuccessJson(ex, { ...anthropic.countTokens, input_tokens: scripted ?? estimateInputTokens(request.body as Json) });
    return reply;
  });
}
