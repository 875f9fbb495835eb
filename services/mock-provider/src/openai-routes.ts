// The OpenAI persona under /v1: recording, auth and script resolution happen in
// one preHandler hook so every route (and every rejection) is logged the same way.
import type { FastifyInstance, FastifyRequest } from "fastify";
import { chatResponse, chooseChatKind, streamPayloads } from "./chat";
import { EmbeddingInputError, embeddingsResponse, normalizeInputs } from "./embeddings";
import { defaultErrorBody, notFoundBody, openAIError } from "./errors";
import { beforeHeaders, sendJson, sendStream, sendSuccessJson } from "./respond";
import type { Exchange } from "./respond";
import { parseScript, ScriptError } from "./scripts";
import { isRecord } from "./state";
import type { MockState } from "./state";
import type { Script } from "./types";
import { resolveUsage } from "./usage";

const MODELS = ["gpt-4o", "gpt-4o-mini", "gpt-4o-2024-08-06", "gpt-5.4", "text-embedding-3-small", "text-embedding-ada-002"];
// A fixed timestamp keeps the list byte-stable across runs.
const MODEL_CREATED = 1715367049;
const MAX_DIMENSIONS = 8192;

const UNPARSABLE_BODY = openAIError(
  "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly. The OpenAI API expects a JSON payload, but what was sent was not valid JSON.)",
);

function isV1(url: string): boolean {
  return url === "/v1" || url.startsWith("/v1/") || url.startsWith("/v1?");
}

function authorized(header: string | undefined, apiKey: string | undefined): boolean {
  const match = /^Bearer\s+(\S.*)$/i.exec(header ?? "");
  if (!match) return false;
  return apiKey === undefined || match[1] === apiKey;
}

function modelObject(id: string) {
  return { id, object: "model", created: MODEL_CREATED, owned_by: id.startsWith("text-") ? "openai-internal" : "system" };
}

export function registerOpenAIRoutes(app: FastifyInstance, state: MockState): void {
  const unauthorizedBody = state.fixtures.errors["openai.error.401.invalid_api_key"] ?? defaultErrorBody(401);

  const exchangeOf = (request: FastifyRequest): Exchange => {
    const ex = state.exchanges.get(request);
    if (!ex) throw new Error("no exchange for request (preHandler hook did not run)");
    return ex;
  };

  app.addHook("preHandler", async (request, reply) => {
    if (!isV1(request.url)) return;
    const queryAt = request.url.indexOf("?");
    const entry = state.log.record({
      method: request.method,
      path: queryAt === -1 ? request.url : request.url.slice(0, queryAt),
      url: request.url,
      headers: { ...request.headers },
      body: request.body,
      receivedAt: Date.now(),
    });
    const ex: Exchange = {
      request,
      reply,
      entry,
      script: undefined,
      requestId: `req_mock_${state.nextRequestId()}`,
      errorFixtures: state.fixtures.errors,
      anthropicErrorEvent: state.fixtures.anthropicErrorEvent,
    };
    state.exchanges.set(request, ex);

    if (!authorized(request.headers.authorization, state.apiKey)) {
      sendJson(ex, 401, unauthorizedBody);
      return reply;
    }
    // Unknown routes answer 404 without consuming queued scripts meant for real calls.
    if (request.routeOptions.url === undefined) return;

    let headerScript: Script | undefined;
    const header = request.headers["x-mock-script"];
    if (header !== undefined) {
      try {
        headerScript = parseScript(JSON.parse(String(header)), state.errorFixtureNames);
      } catch (error) {
        const reason = error instanceof ScriptError ? error.message : "not valid JSON";
        sendJson(ex, 400, openAIError(`mock-provider: invalid x-mock-script header: ${reason}`, "invalid_request_error", "invalid_mock_script"));
        return reply;
      }
    }
    ex.script = state.scripts.resolve(state.rawBodies.get(request) ?? "", headerScript);
    if (ex.script) entry.script = ex.script;
  });

  /** The JSON body when it is an object naming a model; otherwise answers 400 as OpenAI does and returns undefined. */
  function bodyWithModel(ex: ReturnType<typeof exchangeOf>, body: unknown): (Record<string, unknown> & { model: string }) | undefined {
    if (!isRecord(body)) {
      sendJson(ex, 400, UNPARSABLE_BODY);
      return undefined;
    }
    if (typeof body.model !== "string" || body.model === "") {
      sendJson(ex, 400, openAIError("you must provide a model parameter"));
      return undefined;
    }
    return body as Record<string, unknown> & { model: string };
  }

  app.post("/v1/chat/completions", async (request, reply) => {
    const ex = exchangeOf(request);
    if (!(await beforeHeaders(ex))) return reply;
    const body = bodyWithModel(ex, request.body);
    if (!body) return reply;
    if (!Array.isArray(body.messages) || body.messages.length === 0) {
      sendJson(ex, 400, openAIError("Missing required parameter: 'messages'.", "invalid_request_error", "missing_required_parameter", "messages"));
      return reply;
    }

    const kind = chooseChatKind(body);
    const identity = { id: `chatcmpl-mock-${state.nextCompletionId()}`, created: Math.floor(Date.now() / 1000), model: body.model };
    const usage = resolveUsage(ex.script?.usage);
    if (body.stream === true) {
      const includeUsage = isRecord(body.stream_options) && body.stream_options.include_usage === true;
      await sendStream(ex, streamPayloads(state.fixtures.stream[kind], state.fixtures, identity, includeUsage, usage));
      return reply;
    }
    sendSuccessJson(ex, chatResponse(state.fixtures.chat[kind], identity, usage));
    return reply;
  });

  app.post("/v1/embeddings", async (request, reply) => {
    const ex = exchangeOf(request);
    if (!(await beforeHeaders(ex))) return reply;
    const body = bodyWithModel(ex, request.body);
    if (!body) return reply;
    const { dimensions, encoding_format: encoding } = body;
    if (dimensions !== undefined && (typeof dimensions !== "number" || !Number.isInteger(dimensions) || dimensions < 1 || dimensions > MAX_DIMENSIONS)) {
      sendJson(ex, 400, openAIError(`'dimensions' must be an integer between 1 and ${MAX_DIMENSIONS}.`, "invalid_request_error", null, "dimensions"));
      return reply;
    }
    if (encoding !== undefined && encoding !== "float" && encoding !== "base64") {
      sendJson(ex, 400, openAIError("'encoding_format' must be 'float' or 'base64'.", "invalid_request_error", null, "encoding_format"));
      return reply;
    }
    let inputs;
    try {
      inputs = normalizeInputs(body.input);
    } catch (error) {
      if (!(error instanceof EmbeddingInputError)) throw error;
      sendJson(ex, 400, openAIError(error.message, "invalid_request_error", null, "input"));
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
      state.fixtures,
    );
    sendSuccessJson(ex, response);
    return reply;
  });

  app.get("/v1/models", async (request, reply) => {
    const ex = exchangeOf(request);
    if (!(await beforeHeaders(ex))) return reply;
    sendSuccessJson(ex, { object: "list", data: MODELS.map(modelObject) });
    return reply;
  });

  app.get<{ Params: { model: string } }>("/v1/models/:model", async (request, reply) => {
    const ex = exchangeOf(request);
    if (!(await beforeHeaders(ex))) return reply;
    const id = request.params.model;
    if (!MODELS.includes(id)) {
      sendJson(ex, 404, openAIError(`The model '${id}' does not exist`, "invalid_request_error", "model_not_found", "model"));
      return reply;
    }
    sendSuccessJson(ex, modelObject(id));
    return reply;
  });

  app.setNotFoundHandler(async (request, reply) => {
    const body = notFoundBody(request.method, request.url);
    const ex = state.exchanges.get(request);
    if (ex) sendJson(ex, 404, body);
    else reply.code(404).send(body);
    return reply;
  });
}
