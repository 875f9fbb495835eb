// The Vertex AI persona under /vertex: the OAuth2 token endpoint of the mock's
// service account (POST /vertex/token), and the model routes under
// /vertex/v1/projects/{project}/locations/{location}/publishers/{publisher}/models/{model}:{method}:
// Gemini's generateContent and streamGenerateContent (?alt=sse: SSE, else one
// JSON array), the embedding models' predict, and Claude's rawPredict and streamRawPredict. The bearer check and
// the script happen in exchange-hook.ts / personas.ts, as for every persona.
// Test controls: GET /_mock/vertex/service-account (the key file's JSON),
// GET /_mock/vertex/tokens ({exchanges}), POST /_mock/vertex/tokens {expires_in}.
import type { FastifyInstance, FastifyRequest } from "fastify";
import { anthropicStreamFraming } from "../anthropic-errors";
import { chooseAnthropicKind, messageResponse, messageStreamFrames } from "../anthropic-messages";
import { exchangeOf } from "../exchange-hook";
import { chooseGeminiKind, rewriteResponse, streamResponses } from "../gemini-content";
import { GeminiRequestError } from "../gemini-embeddings";
import { geminiArrayFraming, geminiArrayFrames, geminiSseFrames, geminiSseFraming } from "../gemini-errors";
import { isRecord, type Json } from "../json";
import { beforeHeaders, type Exchange, sendJson, sendStream, sendSuccessJson } from "../respond";
import type { MockState } from "../state";
import { resolveUsage } from "../usage";
import { vertexAccountOf } from "./vertex-account";
import { vertexFixtures } from "./vertex-fixtures";
import { VERTEX_ANTHROPIC_VERSION, VERTEX_TOKEN_PATH, vertexTarget } from "./vertex-target";
import { predictEmbeddingsResponse } from "./vertex-predict";
import { withClaudeRequestId } from "./vertex-wire";

/** The mock's own URL as the client reached it, for the key file's token_uri. */
const baseUrlOf = (request: FastifyRequest) => `${request.protocol}://${request.headers.host ?? "127.0.0.1"}`;

export function registerVertexRoutes(app: FastifyInstance, state: MockState): void {
  const account = vertexAccountOf(state);
  const fixtures = vertexFixtures();
  const claudeFraming = anthropicStreamFraming(state.fixtures.anthropicErrorEvent);

  app.post(VERTEX_TOKEN_PATH, async (request, reply) => {
    const form = new URLSearchParams(state.rawBodies.get(request) ?? "");
    const answer =
      form.get("grant_type") === "urn:ietf:params:oauth:grant-type:jwt-bearer"
        ? account.exchange(form.get("assertion") ?? "", `${baseUrlOf(request)}${VERTEX_TOKEN_PATH}`)
        : { status: 400, body: { error: "unsupported_grant_type", error_description: "Invalid grant_type: " } };
    return reply.code(answer.status).header("content-type", "application/json; charset=utf-8").send(JSON.stringify(answer.body));
  });

  app.get("/_mock/vertex/service-account", async (request) => account.serviceAccount(baseUrlOf(request)));
  app.get("/_mock/vertex/tokens", async () => ({ exchanges: account.exchanges, expires_in: account.expiresInSeconds }));
  app.post("/_mock/vertex/tokens", async (request, reply) => {
    const seconds = isRecord(request.body) ? request.body.expires_in : undefined;
    if (typeof seconds !== "number" || !Number.isInteger(seconds) || seconds < 1) {
      return reply.code(400).send({ error: "expires_in must be a positive integer" });
    }
    account.expiresInSeconds = seconds;
    return { ok: true, expires_in: seconds };
  });

  async function gemini(ex: Exchange, body: Json, model: string, method: string, sse: boolean): Promise<void> {
    if (method === "predict") {
      try {
        sendSuccessJson(ex, predictEmbeddingsResponse(body, model, state.fixtures.gemini.embedding, resolveUsage(ex.script?.usage)));
      } catch (error) {
        if (!(error instanceof GeminiRequestError)) throw error;
        sendJson(ex, 400, ex.wire.invalidRequest(error.message, ex.requestId));
      }
      return;
    }
    if (!Array.isArray(body.contents) || body.contents.length === 0) {
      sendJson(ex, 400, ex.wire.invalidRequest("* GenerateContentRequest.contents: contents is not specified\n", ex.requestId));
      return;
    }
    const tools = chooseGeminiKind(body) === "tools";
    const identity = { id: `resp-vrtx-${state.nextCompletionId()}`, model };
    const usage = resolveUsage(ex.script?.usage);
    // No Vertex function-call stream was recorded: the recorded answer is a valid one-event stream.
    const chunks = tools ? [fixtures.gemini.tools] : fixtures.gemini.stream;
    if (method === "generateContent") {
      sendSuccessJson(ex, rewriteResponse(tools ? fixtures.gemini.tools : fixtures.gemini.plain, identity, usage, true));
      return;
    }
    const responses = streamResponses(chunks, identity, usage);
    if (sse) await sendStream(ex, geminiSseFrames(responses), geminiSseFraming);
    else await sendStream(ex, geminiArrayFrames(responses), geminiArrayFraming);
  }

  async function claude(ex: Exchange, body: Json, model: string, method: string): Promise<void> {
    if (body.anthropic_version !== VERTEX_ANTHROPIC_VERSION) {
      sendJson(ex, 400, ex.wire.invalidRequest(`anthropic_version: must be ${VERTEX_ANTHROPIC_VERSION}`, ex.requestId));
      return;
    }
    if (typeof body.max_tokens !== "number" || !Array.isArray(body.messages)) {
      sendJson(ex, 400, ex.wire.invalidRequest("max_tokens and messages are required", ex.requestId));
      return;
    }
    const identity = { id: `msg_vrtx_mock${state.nextCompletionId()}`, model };
    const usage = resolveUsage(ex.script?.usage);
    if (method === "streamRawPredict") {
      await sendStream(ex, messageStreamFrames(fixtures.claude.stream, identity, usage), claudeFraming);
      return;
    }
    // Tools: Anthropic's recorded tool_use answer, as Vertex relays Anthropic's Messages answers.
    const recorded = chooseAnthropicKind(body) === "tools" ? state.fixtures.anthropic.messages.tools : fixtures.claude.message;
    sendSuccessJson(ex, messageResponse(recorded, identity, usage));
  }

  app.post<{ Querystring: { alt?: string } }>("/vertex/v1/*", async (request, reply) => {
    const ex = exchangeOf(state, request);
    const target = vertexTarget(request.url);
    if (!target) {
      sendJson(ex, 404, ex.wire.notFound(request.method, request.url, ex.requestId));
      return reply;
    }
    if (target.publisher === "anthropic") {
      ex.wire = withClaudeRequestId(ex.wire);
      ex.requestId = ex.requestId.replace("req_mock_", "req_vrtx_mock");
    }
    if (!(await beforeHeaders(ex))) return reply;
    const body = request.body;
    if (!isRecord(body)) {
      sendJson(ex, 400, ex.wire.invalidRequest("Invalid JSON payload received. Expected an object.", ex.requestId));
      return reply;
    }
    if (target.publisher === "google") await gemini(ex, body, target.model, target.method, request.query.alt === "sse");
    else await claude(ex, body, target.model, target.method);
    return reply;
  });
}
