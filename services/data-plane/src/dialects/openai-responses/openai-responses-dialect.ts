// POST /v1/responses: the OpenAI Responses API dialect. Its requests become the
// shared (chat) representation for routing and translating upstreams, and pass
// through as written to an upstream that speaks the Responses API itself;
// answers are Responses objects and event streams either way, with usage.cost.
import type { AnswerContext, ClientDialect } from "../client-dialect";
import { ResponsesNativeStreamRenderer } from "./native-stream-renderer";
import { parseResponsesRequest } from "./parse-request";
import { outputItems, ResponseIds, responseShell, statusOf } from "./response-object";
import { responsesErrorBody, responsesErrorFrame } from "./responses-errors";
import { ResponsesTranslatingStreamRenderer } from "./translating-stream-renderer";
import { nativeUsageWithCost, responsesUsage } from "./usage";

export const openAiResponses: ClientDialect = {
  name: "openai-responses",
  operation: "chat",
  routingHeaders: true,
  parse: (body) => parseResponsesRequest(body),

  answer(answer: Record<string, unknown>, context: AnswerContext): Record<string, unknown> {
    // A native upstream's answer is already a response (object "response"); a translated one is a chat.completion.
    const response = answer.object === "response" ? withCost(answer, context) : translate(answer, context);
    if (context.request.service) response.service = { reason: context.trace };
    return response;
  },

  streamRenderer: (context) =>
    context.native ? new ResponsesNativeStreamRenderer(context.maxHeldLength) : new ResponsesTranslatingStreamRenderer(context),
  errorBody: responsesErrorBody,
  errorFrame: responsesErrorFrame,
};

function withCost(response: Record<string, unknown>, context: AnswerContext): Record<string, unknown> {
  response.usage = nativeUsageWithCost(response.usage, context);
  return response;
}

interface ChatCompletion {
  created?: unknown;
  model?: unknown;
  choices?: { message?: Record<string, unknown>; finish_reason?: unknown }[];
}

function translate(answer: ChatCompletion, context: AnswerContext): Record<string, unknown> {
  const choice = answer.choices?.[0] ?? {};
  const { status, incomplete } = statusOf(choice.finish_reason);
  const ids = new ResponseIds(context.requestId);
  return {
    ...responseShell(context.request, {
      id: ids.response,
      createdAt: typeof answer.created === "number" ? answer.created : Math.floor(Date.now() / 1000),
      status,
      model: typeof answer.model === "string" ? answer.model : context.upstreamModel,
      output: outputItems(choice.message ?? {}, ids, status),
      usage: responsesUsage(context),
    }),
    incomplete_details: incomplete,
  };
}
