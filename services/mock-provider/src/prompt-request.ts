// Which requests the prompt-cache model sees and as what: every persona's model calls (not
// embeddings, token counting or image output), with the credential, model, caching rules and
// prompt blocks of each; and the model's outcome as the usage the persona then writes in its
// own wire shape (TokenCounts, in the meaning of that provider's fields).
import { bearerToken, headerValue } from "./presented-keys";
import type { FastifyRequest } from "fastify";
import { AZURE_OPENAI, deploymentOf } from "./azure/azure-deployments";
import { azureIdentity } from "./azure/azure-identity";
import { bedrockCredentials, DEFAULT_ACCESS_KEY_ID } from "./bedrock/bedrock-credentials";
import { invalidConverseBody } from "./bedrock/bedrock-converse";
import { invalidClaudeBody } from "./bedrock/bedrock-invoke-claude";
import { bedrockTarget, modelFamily } from "./bedrock/bedrock-target";
import { chooseGeminiKind } from "./gemini-content";
import { isRecord, type Json } from "./json";
import { wantsImage } from "./openrouter-images";
import { geminiTarget, pathOf } from "./personas";
import type { CachedCall, CacheOutcome, CacheRules } from "./prompt-cache";
import { chatPrompt, conversePrompt, geminiPrompt, messagesPrompt, type Prompt, responsesPrompt } from "./prompt-tokens";
import type { MockState } from "./state";
import type { Persona } from "./types";
import type { TokenCounts } from "./usage";
import { CLIENT_EMAIL } from "./vertex/vertex-account";
import { VERTEX_ANTHROPIC_VERSION, vertexTarget } from "./vertex/vertex-target";

/**
 * The output count the modelled usage reports: the answer is chosen after this, so its real count
 * is unknown here. A fixed small number, at most the request's own output limit.
 */
export const MODELLED_COMPLETION_TOKENS = 16;

const GENERATE = new Set(["generateContent", "streamGenerateContent"]);

type Call = Omit<CachedCall, "blocks"> & { prompt: Prompt };

/** The call if the prompt splits (an unservable body is the route's to refuse, and caches nothing). */
function call(
  family: Persona,
  credential: string | undefined,
  model: unknown,
  rules: CacheRules,
  prompt: Prompt | undefined,
): Call | undefined {
  if (credential === undefined || typeof model !== "string" || model === "" || prompt === undefined) return undefined;
  return { family, credential, model, rules, prompt };
}

/** OpenAI-shaped calls (OpenAI, OpenRouter, Azure): chat or Responses by the path's tail. */
function openAICall(family: Persona, path: string, body: Json, credential: string | undefined, model: unknown): Call | undefined {
  if (path.endsWith("/chat/completions")) return wantsImage(body) ? undefined : call(family, credential, model, "openai", chatPrompt(body));
  if (path.endsWith("/responses")) return call(family, credential, model, "openai", responsesPrompt(body));
  return undefined;
}

/** Azure: the resource key (header or bearer), or the managed identity behind any token the mock's Entra stand-in issued. */
function azureCredential(state: MockState, request: FastifyRequest): string | undefined {
  const token = bearerToken(request);
  const apiKey = headerValue(request, "api-key") ?? token;
  return apiKey !== undefined && token === apiKey && azureIdentity(state).valid(token) ? "azure-managed-identity" : apiKey;
}

/**
 * Bedrock: the API key, or the SigV4 access key id (`Credential=<id>/...`); temporary credentials
 * the mock's container endpoint issued belong to the long-term key's account.
 */
function bedrockCredential(state: MockState, request: FastifyRequest): string | undefined {
  const token = bearerToken(request);
  if (token !== undefined) return token;
  const accessKeyId = /Credential=([^/,\s]+)\//.exec(headerValue(request, "authorization") ?? "")?.[1];
  if (accessKeyId === undefined) return undefined;
  const temporary = bedrockCredentials(state).lookup(accessKeyId)?.sessionToken !== undefined;
  return temporary ? (state.bedrock?.accessKeyId ?? DEFAULT_ACCESS_KEY_ID) : accessKeyId;
}

const isAnthropicBody = (body: Json) => typeof body.max_tokens === "number" && Array.isArray(body.messages);

/** The model call a request is, for the cache; undefined for anything else. */
export function cachedCallOf(state: MockState, request: FastifyRequest, persona: Persona): Call | undefined {
  const body = request.body;
  if (!isRecord(body)) return undefined;
  const path = pathOf(request.url);
  switch (persona) {
    case "openai":
    case "openrouter":
      return path.startsWith("/v1/") ? openAICall(persona, path, body, bearerToken(request), body.model) : undefined;
    case "azure": {
      // The deployments form needs an api-version (the route answers 404 without one).
      const query = request.query as Record<string, unknown> | undefined;
      const versioned = !path.startsWith(`${AZURE_OPENAI}/deployments/`) || Boolean(query?.["api-version"]);
      if (!path.startsWith(`${AZURE_OPENAI}/`) || !versioned) return undefined;
      return openAICall(persona, path, body, azureCredential(state, request), deploymentOf(request));
    }
    case "anthropic":
      if (path !== "/v1/messages" || !isAnthropicBody(body)) return undefined;
      return call(persona, headerValue(request, "x-api-key"), body.model, "anthropic", messagesPrompt(body));
    case "gemini": {
      const target = geminiTarget(request.url);
      if (!target || !GENERATE.has(target.method) || chooseGeminiKind(body) === "image") return undefined;
      const query = request.query as Record<string, unknown> | undefined;
      const key = headerValue(request, "x-goog-api-key") ?? (typeof query?.key === "string" ? query.key : undefined);
      return call(persona, key, target.model, "gemini", geminiPrompt(body));
    }
    case "vertex": {
      // Every token the mock issues is its one service account's.
      const target = vertexTarget(request.url);
      if (target?.publisher === "google" && GENERATE.has(target.method) && chooseGeminiKind(body) !== "image")
        return call(persona, CLIENT_EMAIL, target.model, "gemini", geminiPrompt(body));
      if (target?.publisher === "anthropic" && body.anthropic_version === VERTEX_ANTHROPIC_VERSION && isAnthropicBody(body))
        return call(persona, CLIENT_EMAIL, target.model, "anthropic", messagesPrompt(body));
      return undefined;
    }
    case "bedrock": {
      const target = bedrockTarget(request.url);
      if (!target) return undefined;
      const family = modelFamily(target.modelId);
      const credential = bedrockCredential(state, request);
      if (target.operation.startsWith("invoke")) {
        if (family !== "claude" || invalidClaudeBody(body) !== undefined) return undefined;
        return call(persona, credential, target.modelId, "anthropic", messagesPrompt(body));
      }
      if (family === "titan-embed" || family === "cohere-embed" || invalidConverseBody(body) !== undefined) return undefined;
      return call(persona, credential, target.modelId, "anthropic", conversePrompt(body));
    }
  }
}

/**
 * The outcome as each provider reports it. OpenAI (and Azure, OpenRouter, Responses) and Gemini
 * count cache reads inside the prompt (`prompt_tokens` / `promptTokenCount` = the whole prompt);
 * Anthropic-style providers report the prompt *beside* reads and writes (`input_tokens` = the rest).
 * OpenAI always reports `cached_tokens` (0 included), Gemini only a hit, Anthropic and Converse
 * their read and write counters always; 1-hour writes only when there are some.
 */
export function modelledUsage(rules: CacheRules, outcome: CacheOutcome, maxTokens: number | undefined): TokenCounts {
  const completion_tokens = Math.min(MODELLED_COMPLETION_TOKENS, maxTokens ?? MODELLED_COMPLETION_TOKENS);
  const { promptTokens, readTokens, write5mTokens, write1hTokens } = outcome;
  if (rules === "openai") return { prompt_tokens: promptTokens, completion_tokens, cached_tokens: readTokens };
  if (rules === "gemini") {
    return readTokens > 0
      ? { prompt_tokens: promptTokens, completion_tokens, cached_tokens: readTokens }
      : { prompt_tokens: promptTokens, completion_tokens };
  }
  const counts: TokenCounts = {
    prompt_tokens: promptTokens - readTokens - write5mTokens - write1hTokens,
    completion_tokens,
    cached_tokens: readTokens,
    cache_creation_tokens: write5mTokens,
  };
  if (write1hTokens > 0) counts.cache_creation_1h_tokens = write1hTokens;
  return counts;
}

/** The usage the cache model gives this request, or undefined when it is not a model call. */
export function cachedUsage(state: MockState, request: FastifyRequest, persona: Persona): TokenCounts | undefined {
  const found = cachedCallOf(state, request, persona);
  if (!found) return undefined;
  const { prompt, ...rest } = found;
  const outcome = state.promptCache.use({ ...rest, blocks: prompt.blocks });
  return modelledUsage(found.rules, outcome, prompt.maxTokens);
}
