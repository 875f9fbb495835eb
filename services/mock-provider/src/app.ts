// Builds (never starts) the mock provider. Listening belongs to server.ts and to
// tests, which listen on port 0.
import Fastify from "fastify";
import type { FastifyInstance } from "fastify";
import { createControl, registerControlRoutes } from "./control";
import type { MockControl } from "./control";
import { openAIError } from "./errors";
import { loadFixtures } from "./fixtures";
import { registerAnthropicRoutes } from "./anthropic-routes";
import { registerAzureRoutes } from "./azure/azure-routes";
import { registerBedrockRoutes } from "./bedrock/bedrock-routes";
import { registerExchangeHook } from "./exchange-hook";
import { registerGeminiRoutes } from "./gemini-routes";
import { registerOpenAIRoutes } from "./openai-routes";
import { registerVertexRoutes } from "./vertex/vertex-routes";
import { createGates } from "./personas";
import { PromptCache } from "./prompt-cache";
import { RequestLog } from "./recorder";
import { parseScript, ScriptStore } from "./scripts";
import type { MockState } from "./state";
import type { MockProviderOptions } from "./types";

export type MockProviderApp = FastifyInstance & { mock: MockControl };

// Image inputs arrive as base64 data URLs (or inline data); the default 1 MB limit would reject them.
const BODY_LIMIT = 64 * 1024 * 1024;

export function buildMockProvider(options: MockProviderOptions = {}): MockProviderApp {
  const fixtures = loadFixtures();
  const errorFixtureNames = new Set(Object.keys(fixtures.errors));
  const defaultScript = options.defaultScript === undefined ? undefined : parseScript(options.defaultScript, errorFixtureNames);

  let completions = 0;
  let requests = 0;
  const state: MockState = {
    fixtures,
    log: new RequestLog(options.maxRecordedRequests ?? 10_000),
    scripts: new ScriptStore(defaultScript),
    errorFixtureNames,
    apiKey: options.apiKey,
    bedrock: options.bedrock,
    nextCompletionId: () => ++completions,
    nextRequestId: () => ++requests,
    promptCache: new PromptCache(options.promptCache === true),
    rawBodies: new WeakMap(),
    exchanges: new WeakMap(),
  };

  const app: FastifyInstance = Fastify({
    // Per-request logging would dominate benchmark profiles.
    logger: false,
    bodyLimit: BODY_LIMIT,
    // Stalled streams would otherwise hold close() (and SIGTERM) open until the client gives up.
    forceCloseConnections: true,
  });

  // One lenient parser for every content type: keep the raw text (scripts match
  // on it) and never let a bad body bypass the request log.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("*", { parseAs: "string" }, (request, raw, done) => {
    const text = String(raw);
    state.rawBodies.set(request, text);
    if (text === "") return done(null, undefined);
    try {
      done(null, JSON.parse(text));
    } catch {
      done(null, text);
    }
  });

  app.setErrorHandler((error: { statusCode?: number; message?: string }, _request, reply) => {
    const status = error.statusCode && error.statusCode >= 400 ? error.statusCode : 500;
    reply.code(status).send(openAIError(error.message ?? "mock-provider error", status >= 500 ? "server_error" : "invalid_request_error"));
  });

  const control = createControl(state);
  registerExchangeHook(app, state, createGates(state));
  registerOpenAIRoutes(app, state);
  registerAnthropicRoutes(app, state);
  registerGeminiRoutes(app, state);
  // The clouds, each under its own prefix: /bedrock, /vertex, /azure (README, "Clouds").
  registerBedrockRoutes(app, state);
  registerVertexRoutes(app, state);
  registerAzureRoutes(app, state);
  registerControlRoutes(app, control);
  app.decorate("mock", control);
  return app as MockProviderApp;
}
