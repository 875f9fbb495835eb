// POST /v1/chat/completions bodies: the OpenAI chat completions dialect. Its
// bodies are the shared representation itself, so parsing only checks them.
import { parseServiceBlock } from "../../routing/service-block";
import { invalidRequest } from "../../errors";
import type { AnswerContext, ClientDialect, ClientRequest } from "../client-dialect";
import { checkChatFields } from "./chat-fields";
import { ChatStreamRenderer } from "./chat-stream-renderer";
import { openAiErrorBody, openAiErrorFrame } from "./openai-errors";
import { refuseProviderResources } from "./provider-resources";
import { requireObjectBody } from "./request-body";
import { usageWithCost } from "./usage-with-cost";
import { usdNumber } from "../../billing/pricing";
import type { ChatScan } from "./chat-json-scan";
import { withUsageCost } from "./usage-cost-splice";

/** The `service` block of an answer to a request that sent one: the routing trace. */
const serviceOf = (context: AnswerContext) => ({ reason: context.trace });

export const openAiChat: ClientDialect = {
  name: "openai-chat",
  operation: "chat",
  routingHeaders: true,

  parse(raw: unknown): ClientRequest {
    const body = requireObjectBody(raw);
    checkChatFields(body);
    const service = parseServiceBlock(body.service);
    if (!Array.isArray(body.messages) || body.messages.length === 0)
      throw invalidRequest("invalid_body", "messages must be a non-empty array.", "messages");
    refuseProviderResources(body, body.messages);
    return { operation: "chat", body, original: body, stream: body.stream === true, service };
  },

  answer(answer: Record<string, unknown>, context: AnswerContext): Record<string, unknown> {
    answer.usage = usageWithCost(context.usage, context.tokens, context.debitedNano);
    if (context.request.service) answer.service = serviceOf(context);
    return answer;
  },

  answerBytes: (bytes: Buffer, scan: ChatScan, context: AnswerContext) =>
    withUsageCost(bytes, scan, usdNumber(context.debitedNano), context.request.service ? serviceOf(context) : undefined),

  streamRenderer: ({ native }) => new ChatStreamRenderer(native),
  errorBody: openAiErrorBody,
  errorFrame: openAiErrorFrame,
};
