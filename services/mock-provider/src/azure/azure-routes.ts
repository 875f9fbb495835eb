// The Azure OpenAI persona under /azure: a resource at /azure/openai with the
// deployments form (`/deployments/{deployment}/...?api-version=V`) and the v1
// form (`/v1/...`, the deployment as `model`), and the Entra ID stand-in that
// issues its bearer tokens (azure-identity.ts). Answers are the OpenAI
// persona's, with Azure's content-filter verdicts and headers; logging, auth
// and scripts are the shared hook's (azure-gate.ts).
import type { FastifyInstance, FastifyRequest } from "fastify";
import { assembleChatCompletion } from "../assemble-openai";
import { chatResponse, chooseChatKind, streamChunks } from "../chat";
import { EmbeddingInputError, embeddingsResponse, normalizeInputs } from "../embeddings";
import { exchangeOf } from "../exchange-hook";
import { isRecord, type Json } from "../json";
import { beforeHeaders, type Exchange, sendJson, sendStream, sendSuccessJson } from "../respond";
import { responseObject, responseStreamFrames, responsesStreamFraming, chooseResponsesKind } from "../responses";
import { frame } from "../sse";
import type { MockState } from "../state";
import { resolveUsage } from "../usage";
import { openAIStreamFraming } from "../wire";
import { AZURE_DEPLOYMENTS, AZURE_OPENAI, deploymentOf, isKnownDeployment } from "./azure-deployments";
import { azureChatResponse, azureStreamChunks } from "./azure-chat";
import { azureVerdicts } from "./azure-fixtures";
import { AZURE_IDENTITY_PATH, azureIdentity } from "./azure-identity";
import { AZURE_HEADERS, azureErrorBody } from "./azure-wire";

const DEPLOYMENT_NOT_FOUND = azureErrorBody(
  "DeploymentNotFound",
  "The API deployment for this resource does not exist. If you created the deployment within the last 5 minutes, please wait a moment and try again.",
);

export function registerAzureRoutes(app: FastifyInstance, state: MockState): void {
  const { fixtures } = state;
  const verdicts = azureVerdicts();
  const identity = azureIdentity(state);

  /**
   * The deployment of a model call, its Azure headers set; undefined when the call was answered
   * already (unknown deployment, no api-version on the deployments form, a scripted error, a fault).
   */
  async function open(
    request: FastifyRequest,
    form: "deployments" | "v1",
  ): Promise<{ ex: Exchange; model: string; body: Json } | undefined> {
    const ex = exchangeOf(state, request);
    for (const [name, value] of Object.entries(AZURE_HEADERS)) ex.reply.raw.setHeader(name, value);
    const deployment = deploymentOf(request);
    if (form === "deployments" && !(request.query as Record<string, unknown>)["api-version"]) {
      sendJson(ex, 404, ex.wire.notFound(request.method, request.url, ex.requestId));
      return undefined;
    }
    if (!isKnownDeployment(deployment)) {
      sendJson(ex, 404, state.fixtures.errors["azure.error.404.deployment_not_found"] ?? DEPLOYMENT_NOT_FOUND);
      return undefined;
    }
    if (!(await beforeHeaders(ex))) return undefined;
    if (!isRecord(request.body)) {
      sendJson(ex, 400, ex.wire.invalidRequest("We could not parse the JSON body of your request.", ex.requestId));
      return undefined;
    }
    return { ex, model: AZURE_DEPLOYMENTS[deployment]!, body: request.body };
  }

  async function chat(request: FastifyRequest, form: "deployments" | "v1"): Promise<void> {
    const opened = await open(request, form);
    if (!opened) return;
    const { ex, model, body } = opened;
    if (!Array.isArray(body.messages) || body.messages.length === 0) {
      sendJson(
        ex,
        400,
        ex.wire.invalidRequest("Missing required parameter: 'messages'.", ex.requestId, {
          code: "missing_required_parameter",
          param: "messages",
        }),
      );
      return;
    }
    const kind = chooseChatKind(body);
    const usage = resolveUsage(ex.script?.usage);
    const answer = { id: `chatcmpl-mock-${state.nextCompletionId()}`, created: Math.floor(Date.now() / 1000), model };
    const filtered = ex.script?.fault === "content-filter-mid-stream";
    if (body.stream === true) {
      const includeUsage = isRecord(body.stream_options) && body.stream_options.include_usage === true;
      const chunks = azureStreamChunks(streamChunks(fixtures.stream[kind], fixtures, answer, includeUsage, usage), verdicts, filtered);
      await sendStream(
        ex,
        chunks.map((chunk) => frame(JSON.stringify(chunk))),
        openAIStreamFraming,
      );
      return;
    }
    const whole = ex.script?.assembled
      ? assembleChatCompletion(streamChunks(fixtures.stream[kind], fixtures, answer, true, usage))
      : chatResponse(fixtures.chat[kind], answer, usage);
    sendSuccessJson(ex, azureChatResponse(whole, verdicts, filtered));
  }

  async function embeddings(request: FastifyRequest, form: "deployments" | "v1"): Promise<void> {
    const opened = await open(request, form);
    if (!opened) return;
    const { ex, model, body } = opened;
    let inputs: ReturnType<typeof normalizeInputs>;
    try {
      inputs = normalizeInputs(body.input);
    } catch (error) {
      if (!(error instanceof EmbeddingInputError)) throw error;
      sendJson(ex, 400, ex.wire.invalidRequest(error.message, ex.requestId, { param: "input" }));
      return;
    }
    const dimensions = typeof body.dimensions === "number" ? body.dimensions : undefined;
    const promptTokens = resolveUsage(ex.script?.usage)?.prompt_tokens;
    sendSuccessJson(
      ex,
      embeddingsResponse({ inputs, model, dimensions, base64: body.encoding_format === "base64", promptTokens }, fixtures),
    );
  }

  const deployments = `${AZURE_OPENAI}/deployments/:deployment`;
  app.post(`${deployments}/chat/completions`, async (request, reply) => {
    await chat(request, "deployments");
    return reply;
  });
  app.post(`${deployments}/embeddings`, async (request, reply) => {
    await embeddings(request, "deployments");
    return reply;
  });
  app.post(`${AZURE_OPENAI}/v1/chat/completions`, async (request, reply) => {
    await chat(request, "v1");
    return reply;
  });
  app.post(`${AZURE_OPENAI}/v1/embeddings`, async (request, reply) => {
    await embeddings(request, "v1");
    return reply;
  });

  app.post(`${AZURE_OPENAI}/v1/responses`, async (request, reply) => {
    const opened = await open(request, "v1");
    if (!opened) return reply;
    const { ex, model, body } = opened;
    if (typeof body.input !== "string" && !Array.isArray(body.input)) {
      sendJson(
        ex,
        400,
        ex.wire.invalidRequest("Missing required parameter: 'input'.", ex.requestId, {
          code: "missing_required_parameter",
          param: "input",
        }),
      );
      return reply;
    }
    const kind = chooseResponsesKind(body);
    const answer = { id: `resp_mock_${state.nextCompletionId()}`, created_at: Math.floor(Date.now() / 1000), model };
    const usage = resolveUsage(ex.script?.usage);
    const { responses } = fixtures;
    if (body.stream === true) {
      await sendStream(ex, responseStreamFrames(responses.streams[kind], answer, usage), responsesStreamFraming(responses.failure, answer));
      return reply;
    }
    sendSuccessJson(ex, responseObject(responses.responses[kind], answer, usage));
    return reply;
  });

  // App Service's managed-identity endpoint (api-version 2019-08-01), as @azure/identity calls it.
  app.get<{ Querystring: { resource?: string } }>(AZURE_IDENTITY_PATH, async (request, reply) => {
    const ex = exchangeOf(state, request);
    const resource = request.query.resource;
    if (!resource) {
      sendJson(ex, 400, { error: "invalid_request", error_description: "resource is required (mock)." });
      return reply;
    }
    sendJson(ex, 200, identity.issue(resource));
    return reply;
  });

  /** Tokens the identity stand-in issued (tests: one refresh under load). */
  app.get("/_mock/azure/tokens", async () => ({ issued: identity.issued }));
}
