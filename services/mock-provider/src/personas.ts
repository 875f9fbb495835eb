// Which persona answers a request, and the checks it makes before any script
// runs: the path picks the vendor (`/v1/messages` Anthropic, `/v1beta/...`
// Gemini, other `/v1/...` OpenAI, or OpenRouter when the request asks for it),
// and each vendor authenticates its own way. A rejected call is logged but
// consumes no script.
import type { FastifyRequest } from "fastify";
import { anthropicError, createAnthropicWire } from "./anthropic-errors";
import { createAzureGate } from "./azure/azure-gate";
import { bedrockGate } from "./bedrock/bedrock-gate";
import { defaultErrorBody } from "./errors";
import { createGeminiWire, MISSING_KEY } from "./gemini-errors";
import { createOpenRouterWire, wantsOpenRouter } from "./openrouter";
import type { MockState } from "./state";
import type { Persona } from "./types";
import { createVertexGate } from "./vertex/vertex-gate";
import { VERTEX_TOKEN_PATH } from "./vertex/vertex-target";
import { openAIWire } from "./wire";
import type { Wire } from "./wire";

import type { Gate } from "./gate";

/** Versions of the Messages API the real service accepts. */
const ANTHROPIC_VERSIONS = new Set(["2023-06-01", "2023-01-01"]);

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function bearer(request: FastifyRequest): string | undefined {
  return /^Bearer\s+(\S.*)$/i.exec(header(request, "authorization") ?? "")?.[1];
}

export function pathOf(url: string): string {
  const queryAt = url.indexOf("?");
  return queryAt === -1 ? url : url.slice(0, queryAt);
}

const GEMINI_METHODS = new Set(["generateContent", "streamGenerateContent", "embedContent", "batchEmbedContents"]);

/** `{model, method}` of a Gemini call `/v1beta/models/{model}:{method}`, undefined for anything else. */
export function geminiTarget(url: string): { model: string; method: string } | undefined {
  const match = /^\/v1beta\/models\/([^/]+):([A-Za-z]+)$/.exec(pathOf(url));
  if (!match || !GEMINI_METHODS.has(match[2]!)) return undefined;
  return { model: decodeURIComponent(match[1]!), method: match[2]! };
}

const under = (path: string, prefix: string) => path === prefix || path.startsWith(`${prefix}/`);

export type GateFor = (request: FastifyRequest) => Gate | undefined;

export function createGates(state: MockState): GateFor {
  const errors = state.fixtures.errors;
  const keyMatches = (key: string | undefined) => key !== undefined && key !== "" && (state.apiKey === undefined || key === state.apiKey);

  const bearerGate = (persona: Persona, wire: Wire, unauthorized: unknown): Gate => ({
    persona,
    wire,
    reject: (request) => (keyMatches(bearer(request)) ? undefined : { status: 401, body: unauthorized }),
  });
  const openai = bearerGate("openai", openAIWire, errors["openai.error.401.invalid_api_key"] ?? defaultErrorBody(401));
  const openRouterWire = createOpenRouterWire(state.fixtures.openrouter.errorsByStatus);
  const openrouter = bearerGate("openrouter", openRouterWire, errors["openrouter.error.401"] ?? openRouterWire.errorBody(401, ""));

  const anthropicWire = createAnthropicWire(errors);
  const anthropic: Gate = {
    persona: "anthropic",
    wire: anthropicWire,
    reject(request, requestId) {
      const key = header(request, "x-api-key");
      if (key === undefined || key === "") {
        return { status: 401, body: anthropicError("authentication_error", "x-api-key header is required", requestId) };
      }
      if (!keyMatches(key)) {
        const recorded = errors["anthropic.error.401.authentication_error"];
        return {
          status: 401,
          body: recorded
            ? anthropicWire.fixtureBody(recorded, requestId)
            : anthropicError("authentication_error", "invalid x-api-key", requestId),
        };
      }
      const version = header(request, "anthropic-version");
      if (version === undefined || version === "") {
        return { status: 400, body: anthropicError("invalid_request_error", "anthropic-version: header is required", requestId) };
      }
      if (!ANTHROPIC_VERSIONS.has(version)) {
        return { status: 400, body: anthropicError("invalid_request_error", `anthropic-version: invalid version: ${version}`, requestId) };
      }
      return undefined;
    },
  };

  const gemini: Gate = {
    persona: "gemini",
    wire: createGeminiWire(errors),
    serves: (request) => geminiTarget(request.url) !== undefined,
    reject(request) {
      const query = request.query as Record<string, unknown> | undefined;
      const key = header(request, "x-goog-api-key") ?? (typeof query?.key === "string" ? query.key : undefined);
      if (key === undefined || key === "") return { status: 403, body: MISSING_KEY };
      if (!keyMatches(key)) return { status: 400, body: errors["gemini.error.400.api_key_invalid"] ?? MISSING_KEY };
      return undefined;
    },
  };

  const azure = createAzureGate(state);
  const vertex = createVertexGate(state);

  return (request) => {
    const path = pathOf(request.url);
    if (under(path, "/azure")) return azure;
    if (under(path, "/bedrock")) return bedrockGate(state, request);
    // The Vertex token endpoint checks its own grant (vertex/vertex-routes.ts); the model routes need its token.
    if (path === VERTEX_TOKEN_PATH) return undefined;
    if (under(path, "/vertex")) return vertex;
    if (under(path, "/v1/messages")) return anthropic;
    if (under(path, "/v1beta")) return gemini;
    if (under(path, "/v1")) return wantsOpenRouter(request.headers, request.body) ? openrouter : openai;
    return undefined;
  };
}
