// The OpenAI persona under /v1 (and its OpenRouter flavour, see openrouter.ts):
// chat completions, the Responses API (responses.ts), embeddings, models.
// Logging, auth and script resolution happen in exchange-hook.ts, the same
// for every persona.
import type { FastifyInstance } from "fastify";
import { assembleChatCompletion } from "./assemble-openai";
import { chatResponse, chooseChatKind, streamChunks } from "./chat";
import type { Identity } from "./chat";
import { openAIError } from "./errors";
import { EmbeddingInputError, embeddingsResponse, normalizeInputs } from "./embeddings";
import { exchangeOf } from "./exchange-hook";
import { isRecord, type Json } from "./json";
import { imageCompletion, imageStreamChunks, wantsImage } from "./openrouter-images";
import { asOpenRouter, openRouterId, openRouterIncludesUsage, openRouterStreamFraming } from "./openrouter";
import { beforeHeaders, sendJson, sendStream, sendSuccessJson } from "./respond";
import {
  assembleResponse,
  chooseResponsesKind,
  responseObject,
  responseStreamEvents,
  responseStreamFrames,
  responsesStreamFraming,
} from "./responses";
import type { Exchange } from "./respond";
import { frame } from "./sse";
import type { MockState } from "./state";
import { resolveUsage } from "./usage";
import type { TokenCounts } from "./usage";
import { openAIStreamFraming } from "./wire";

const MODELS = ["gpt-4o", "gpt-4o-mini", "gpt-4o-2024-08-06", "gpt-5.4", "text-embedding-3-small", "text-embedding-ada-002"];
// A fixed timestamp keeps the list byte-stable across runs.
const MODEL_CREATED = 1715367049;
const MAX_DIMENSIONS = 8192;

const UNPARSABLE_BODY =
  "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly. The OpenAI API expects a JSON payload, but what was sent was not valid JSON.)";

function modelObject(id: string) {
  return { id, object: "model", created: MODEL_CREATED, owned_by: id.startsWith("text-") ? "openai-internal" : "system" };
}

type ChatBody = Json & { model: string };

export function registerOpenAIRoutes(app: FastifyInstance, state: MockState): void {
  const { fixtures } = state;

  /** OpenRouter answers: decorated recordings, image output, its comment line and mid-stream error. */
  async function answerAsOpenRouter(ex: Exchange, body: ChatBody, identity: Identity, usage: TokenCounts | undefined): Promise<void> {
    const image = wantsImage(body);
    const chunks = (includeUsage: boolean) =>
      image
        ? imageStreamChunks(fixtures.openrouter.imageResponse, identity, includeUsage, usage)
        : streamChunks(fixtures.stream[chooseChatKind(body)], fixtures, identity, includeUsage, usage);
    if (body.stream === true) {
      const frames = chunks(openRouterIncludesUsage(body)).map((chunk) => frame(JSON.stringify(asOpenRouter(chunk, body.model, usage))));
      await sendStream(ex, frames, openRouterStreamFraming(fixtures.openrouter.midStreamError, identity));
      return;
    }
    const response = ex.script?.assembled
      ? assembleChatCompletion(chunks(true))
      : image
        ? imageCompletion(fixtures.openrouter.imageResponse, identity, usage)
        : chatResponse(fixtures.chat[chooseChatKind(body)], identity, usage);
    sendSuccessJson(ex, asOpenRouter(response, body.model, usage));
  }

  /** The JSON body when it is an object naming a model; otherwise answers 400 as OpenAI does and returns undefined. */
  function bodyWithModel(ex: Exchange, body: unknown): ChatBody | undefined {
    if (!isRecord(body)) {
      sendJson(ex, 400, ex.wire.invalidRequest(UNPARSABLE_BODY, ex.requestId));
      return undefined;
    }
    if (typeof body.model !== "string" || body.model === "") {
      sendJson(ex, 400, ex.wire.invalidRequest("you must provide a model parameter", ex.requestId));
      return undefined;
    }
    return body as ChatBody;
  }

  app.post("/v1/chat/completions", async (request, reply) => {
    const ex = exchangeOf(state, request);
    if (!(await beforeHeaders(ex))) return reply;
    const body = bodyWithModel(ex, request.body);
    if (!body) return reply;
    if (!Array.isArray(body.messages) || body.messages.length === 0) {
      sendJson(
        ex,
        400,
        ex.wire.invalidRequest("Missing required parameter: 'messages'.", ex.requestId, {
          code: "missing_required_parameter",
          param: "messages",
        }),
      );
      return reply;
    }

    const kind = chooseChatKind(body);
    const created = Math.floor(Date.now() / 1000);
    const n = state.nextCompletionId();
    const usage = resolveUsage(ex.script?.usage);
    if (ex.persona === "openrouter") {
      await answerAsOpenRouter(ex, body, { id: openRouterId(created, n), created, model: body.model }, usage);
      return reply;
    }
    const identity = { id: `chatcmpl-mock-${n}`, created, model: body.model };
    if (body.stream === true) {
      const includeUsage = isRecord(body.stream_options) && body.stream_options.include_usage === true;
      const chunks = streamChunks(fixtures.stream[kind], fixtures, identity, includeUsage, usage);
      await sendStream(
        ex,
        chunks.map((chunk) => frame(JSON.stringify(chunk))),
        openAIStreamFraming,
      );
      return reply;
    }
    const response = ex.script?.assembled
      ? assembleChatCompletion(streamChunks(fixtures.stream[kind], fixtures, identity, true, usage))
      : chatResponse(fixtures.chat[kind], identity, usage);
    sendSuccessJson(ex, response);
    return reply;
  });

  /** The vendor's 400 for a missing required field. */
  function missing(ex: Exchange, param: string): void {
    sendJson(
      ex,
      400,
      ex.wire.invalidRequest(`Missing required parameter: '${param}'.`, ex.requestId, { code: "missing_required_parameter", param }),
    );
  }

  app.post("/v1/responses", async (request, reply) => {
    const ex = exchangeOf(state, request);
    if (!(await beforeHeaders(ex))) return reply;
    const body = request.body;
    if (!isRecord(body)) {
      sendJson(ex, 400, ex.wire.invalidRequest(UNPARSABLE_BODY, ex.requestId));
      return reply;
    }
    if (typeof body.model !== "string" || body.model === "") {
      missing(ex, "model");
      return reply;
    }
    if (typeof body.input !== "string" && !Array.isArray(body.input)) {
      missing(ex, "input");
      return reply;
    }
    const kind = chooseResponsesKind(body);
    const identity = { id: `resp_mock_${state.nextCompletionId()}`, created_at: Math.floor(Date.now() / 1000), model: body.model };
    const usage = resolveUsage(ex.script?.usage);
    const { responses } = fixtures;
    if (body.stream === true) {
      await sendStream(
        ex,
        responseStreamFrames(responses.streams[kind], identity, usage),
        responsesStreamFraming(responses.failure, identity),
      );
      return reply;
    }
    const response = ex.script?.assembled
      ? assembleResponse(responseStreamEvents(responses.streams[kind], identity, usage))
      : responseObject(responses.responses[kind], identity, usage);
    sendSuccessJson(ex, response);
    return reply;
  });

  app.post("/v1/embeddings", async (request, reply) => {
    const ex = exchangeOf(state, request);
    if (!(await beforeHeaders(ex))) return reply;
    const body = bodyWithModel(ex, request.body);
    if (!body) return reply;
    const { dimensions, encoding_format: encoding } = body;
    if (
      dimensions !== undefined &&
      (typeof dimensions !== "number" || !Number.isInteger(dimensions) || dimensions < 1 || dimensions > MAX_DIMENSIONS)
    ) {
      sendJson(
        ex,
        400,
        ex.wire.invalidRequest(`'dimensions' must be an integer between 1 and ${MAX_DIMENSIONS}.`, ex.requestId, { param: "dimensions" }),
      );
      return reply;
    }
    if (encoding !== undefined && encoding !== "float" && encoding !== "base64") {
      sendJson(
        ex,
        400,
        ex.wire.invalidRequest("'encoding_format' must be 'float' or 'base64'.", ex.requestId, { param: "encoding_format" }),
      );
      return reply;
    }
    let inputs: ReturnType<typeof normalizeInputs>;
    try {
      inputs = normalizeInputs(body.input);
    } catch (error) {
      if (!(error instanceof EmbeddingInputError)) throw error;
      sendJson(ex, 400, ex.wire.invalidRequest(error.message, ex.requestId, { param: "input" }));
      return reply;
    }
    const response = embeddingsResponse(
      {
        inputs,
        model: body.model,
        dimensions,
        base64: encoding === "base64",
        promptTokens: resolveUsage(ex.script?.usage)?.prompt_tokens,
      },
      fixtures,
    );
    sendSuccessJson(ex, response);
    return reply;
  });

  app.get("/v1/models", async (request, reply) => {
    const ex = exchangeOf(state, request);
    if (!(await beforeHeaders(ex))) return reply;
    sendSuccessJson(ex, { object: "list", data: MODELS.map(modelObject) });
    return reply;
  });

  app.get<{ Params: { model: string } }>("/v1/models/:model", async (request, reply) => {
    const ex = exchangeOf(state, request);
    if (!(await beforeHeaders(ex))) return reply;
    const id = request.params.model;
    if (!MODELS.includes(id)) {
      sendJson(ex, 404, openAIError(`The model '${id}' does not exist`, "invalid_request_error", "model_not_found", "model"));
      return reply;
    }
    sendSuccessJson(ex, modelObject(id));
    return reply;
  });
}
