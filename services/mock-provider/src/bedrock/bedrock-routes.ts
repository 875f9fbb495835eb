// The AWS Bedrock persona under /bedrock: POST /bedrock/model/{modelId}/{converse |
// converse-stream | invoke | invoke-with-response-stream}, and the container-credentials
// endpoint GET /bedrock/credentials. Auth is decided before any script (bedrock-gate.ts);
// logging and scripts are the shared hook's. Test controls: GET /_mock/bedrock/credentials
// ({issued, lifetime_seconds}), POST /_mock/bedrock/credentials {lifetime_seconds}.
import type { FastifyInstance } from "fastify";
import { chooseAnthropicKind } from "../anthropic-messages";
import { exchangeOf } from "../exchange-hook";
import { isRecord, type Json } from "../json";
import { beforeHeaders, type BinaryStreamFraming, type Exchange, sendBinaryStream, sendJson, sendSuccessJson } from "../respond";
import type { MockState } from "../state";
import type { Fault } from "../types";
import { resolveUsage } from "../usage";
import { chooseConverseKind, converseResponse, converseStreamEvents, invalidConverseBody } from "./bedrock-converse";
import { bedrockCredentials, CREDENTIALS_PATH } from "./bedrock-credentials";
import { cohereEmbeddings, type EmbeddingAnswer, titanEmbedding } from "./bedrock-embeddings";
import { type BedrockEvent, EVENT_STREAM_TYPE, encodeEvent, malformedEvent } from "./bedrock-event-stream";
import { type BedrockExceptionType, bedrockFixtures } from "./bedrock-fixtures";
import { registerBedrockVerdicts } from "./bedrock-gate";
import { claudeMessage, claudeStreamChunks, invalidClaudeBody, invocationHeaders } from "./bedrock-invoke-claude";
import { anthropicModelName, bedrockTarget, modelFamily } from "./bedrock-target";
import { createBedrockWire, scriptedErrorType } from "./bedrock-wire";

/** Which exception message a mid-stream error fault sends on a Bedrock stream. */
const EXCEPTION_BY_FAULT: Partial<Record<Fault, BedrockExceptionType>> = {
  "bedrock-throttling-mid-stream": "throttlingException",
  "bedrock-service-unavailable-mid-stream": "serviceUnavailableException",
  "bedrock-model-stream-error-mid-stream": "modelStreamErrorException",
  // The generic faults: the model's stream failed, as Bedrock reports it.
  "error-event-mid-stream": "modelStreamErrorException",
  "anthropic-error-event-mid-stream": "modelStreamErrorException",
};

const NOT_A_CHAT_MODEL = "This action doesn't support the model that you provided. Try again with a supported text or chat model.";

export function registerBedrockRoutes(app: FastifyInstance, state: MockState): void {
  registerBedrockVerdicts(app, state);
  const fixtures = bedrockFixtures();
  const credentials = bedrockCredentials(state);
  const framing = (eventType: string): BinaryStreamFraming => ({
    contentType: EVENT_STREAM_TYPE,
    errorMessage: (fault) => {
      const type = EXCEPTION_BY_FAULT[fault];
      return type === undefined ? undefined : fixtures.exceptions[type];
    },
    malformedMessage: malformedEvent(eventType),
  });
  const converseFraming = framing("contentBlockDelta");
  const invokeFraming = framing("chunk");
  const sendEvents = (ex: Exchange, events: BedrockEvent[], eventFraming: BinaryStreamFraming) =>
    sendBinaryStream(ex, events.map(encodeEvent), eventFraming);
  const refuse = (ex: Exchange, message: string) => sendJson(ex, 400, ex.wire.invalidRequest(message, ex.requestId));

  async function converse(ex: Exchange, modelId: string, body: unknown, streamed: boolean): Promise<void> {
    const family = modelFamily(modelId);
    if (family === "titan-embed" || family === "cohere-embed") return refuse(ex, NOT_A_CHAT_MODEL);
    const problem = invalidConverseBody(body);
    if (problem !== undefined) return refuse(ex, problem);
    const kind = chooseConverseKind(body as Json);
    const usage = resolveUsage(ex.script?.usage);
    state.nextCompletionId();
    if (streamed) return sendEvents(ex, converseStreamEvents(fixtures, kind, usage), converseFraming);
    sendSuccessJson(ex, converseResponse(kind === "tools" ? fixtures.converse.tools : fixtures.converse.plain, usage));
  }

  function embeddings(ex: Exchange, answer: EmbeddingAnswer): void {
    if ("problem" in answer) {
      refuse(ex, answer.problem);
      return;
    }
    ex.reply.raw.setHeader("x-amzn-bedrock-input-token-count", String(answer.inputTokens));
    ex.reply.raw.setHeader("x-amzn-bedrock-invocation-latency", "96");
    sendSuccessJson(ex, answer.body);
  }

  async function invoke(ex: Exchange, modelId: string, body: unknown, streamed: boolean): Promise<void> {
    const family = modelFamily(modelId);
    const scriptedTokens = resolveUsage(ex.script?.usage)?.prompt_tokens;
    if (family === "titan-embed" && !streamed) return embeddings(ex, titanEmbedding(modelId, body, scriptedTokens));
    if (family === "cohere-embed" && !streamed) return embeddings(ex, cohereEmbeddings(body, scriptedTokens));
    if (family !== "claude") {
      return refuse(
        ex,
        `mock-provider: InvokeModel${streamed ? "WithResponseStream" : ""} serves Claude (and Titan / Cohere embeddings without streaming) here; ${modelId} takes Converse.`,
      );
    }
    const problem = invalidClaudeBody(body);
    if (problem !== undefined) return refuse(ex, problem);
    const kind = chooseAnthropicKind(body as Json);
    const identity = {
      id: `msg_bdrk_mock${state.nextCompletionId()}`,
      model: anthropicModelName(modelId, String(fixtures.invoke.message.model)),
    };
    const usage = resolveUsage(ex.script?.usage);
    if (streamed) {
      ex.reply.raw.setHeader("x-amzn-bedrock-content-type", "application/json");
      return sendEvents(ex, claudeStreamChunks(state.fixtures, fixtures, kind, identity, usage), invokeFraming);
    }
    const message = claudeMessage(state.fixtures, fixtures, kind, identity, usage);
    for (const [name, value] of Object.entries(invocationHeaders(message))) ex.reply.raw.setHeader(name, value);
    sendSuccessJson(ex, message);
  }

  app.post("/bedrock/model/*", async (request, reply) => {
    const ex = exchangeOf(state, request);
    const target = bedrockTarget(request.url);
    if (!target) {
      sendJson(ex, 404, ex.wire.notFound(request.method, request.url, ex.requestId));
      return reply;
    }
    // A scripted 429 may be a ModelNotReadyException, a 403 an expired token...: the fixture names it.
    const scripted = scriptedErrorType(ex.script);
    if (scripted !== undefined) ex.wire = createBedrockWire(state.fixtures.errors, scripted);
    if (!(await beforeHeaders(ex))) return reply;
    const { modelId, operation } = target;
    if (operation === "converse" || operation === "converse-stream")
      await converse(ex, modelId, request.body, operation === "converse-stream");
    else await invoke(ex, modelId, request.body, operation === "invoke-with-response-stream");
    return reply;
  });

  app.get(CREDENTIALS_PATH, async (request, reply) => {
    sendJson(exchangeOf(state, request), 200, credentials.issue());
    return reply;
  });

  app.get("/_mock/bedrock/credentials", async () => ({ issued: credentials.issued, lifetime_seconds: credentials.lifetimeSeconds }));
  app.post("/_mock/bedrock/credentials", async (request, reply) => {
    const seconds = isRecord(request.body) ? request.body.lifetime_seconds : undefined;
    if (typeof seconds !== "number" || !Number.isInteger(seconds) || seconds < 1) {
      return reply.code(400).send({ error: "lifetime_seconds must be a positive integer" });
    }
    credentials.lifetimeSeconds = seconds;
    return { ok: true, lifetime_seconds: seconds };
  });
}
