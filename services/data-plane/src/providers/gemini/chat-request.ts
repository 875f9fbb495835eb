// An OpenAI chat completion request as a Gemini generateContent call.
import type { RequestContext, UpstreamCall } from "../provider-adapter";
import { convertMessages } from "./convert-messages";
import { convertTools } from "./convert-tools";
import { generationConfig } from "./generation-config";
import type { JsonObject } from "./wire-types";

export function chatCall(body: JsonObject, context: RequestContext): UpstreamCall {
  // Gemini streams only with `alt=sse`; without it the stream endpoint answers one JSON array at the end.
  const method = body.stream === true ? "streamGenerateContent?alt=sse" : "generateContent";
  const upstream = chatBody(body);
  // Without the caller's max tokens, the catalogue's maximum is sent: the hold was computed with it,
  // so the answer cannot outgrow the hold if Google's own default is larger.
  if (context.maxOutputTokens > 0) {
    upstream.generationConfig ??= {};
    const config = upstream.generationConfig as JsonObject;
    config.maxOutputTokens ??= context.maxOutputTokens;
  }
  return { path: `/${modelResource(context.upstreamModel)}:${method}`, headers: geminiHeaders(context), body: JSON.stringify(upstream) };
}

/** The GenerateContentRequest body. Gemini always reports usage (`usageMetadata`), streamed or not, so nothing asks for it. */
export function chatBody(body: JsonObject): JsonObject {
  const { contents, systemInstruction } = convertMessages(body.messages);
  // A conversation of system messages only: OpenAI answers it, Gemini refuses empty contents.
  const onlySystem = contents.length === 0 && systemInstruction !== undefined;
  const upstream: JsonObject = { contents: onlySystem ? [{ role: "user", parts: (systemInstruction as JsonObject).parts }] : contents };
  if (systemInstruction && !onlySystem) upstream.systemInstruction = systemInstruction;
  Object.assign(upstream, convertTools(body.tools, body.tool_choice));
  const config = generationConfig(body);
  if (config) upstream.generationConfig = config;
  return upstream;
}

/** `models/<id>` for a bare model id; an id that already names a resource ("models/x", "tunedModels/y") is used as is. */
export function modelResource(upstreamModel: string): string {
  return upstreamModel.includes("/") ? upstreamModel : `models/${upstreamModel}`;
}

export function geminiHeaders(context: RequestContext): Record<string, string> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  // The header, not `?key=`, so the key never lands in a logged URL.
  if (context.apiKey) headers["x-goog-api-key"] = context.apiKey;
  return headers;
}
