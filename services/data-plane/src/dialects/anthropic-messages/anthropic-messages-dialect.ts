// POST /v1/messages: the Anthropic Messages client dialect
// (docs/dialects/anthropic-messages.md). To an upstream that speaks it
// (Anthropic) the body passes through and the answer is relayed as written,
// `usage.cost` added; to any other it is translated both ways through the
// shared representation.
//   parse-request.ts, convert-content.ts, convert-tools.ts   the body -> ClientRequest
//   provider-resources.ts                                     server tools and file ids, refused
//   message-object.ts, stop-reason.ts, usage.ts              whole answers
//   native-stream-renderer.ts, translated-stream-renderer.ts  streams (tool-call-buffer.ts)
//   anthropic-errors.ts                                       errors (the status -> type mapping)
import type { AnswerContext, ClientDialect, RenderContext } from "../client-dialect";
import { anthropicErrorBody, anthropicErrorFrame } from "./anthropic-errors";
import { nativeMessage, translatedMessage } from "./message-object";
import { MessagesNativeStreamRenderer } from "./native-stream-renderer";
import { parseMessagesRequest } from "./parse-request";
import { MessagesTranslatedStreamRenderer } from "./translated-stream-renderer";

export const anthropicMessages: ClientDialect = {
  name: "anthropic-messages",
  operation: "chat",
  routingHeaders: true,

  parse: (body, headers) => parseMessagesRequest(body, headers),

  answer(answer: Record<string, unknown>, context: AnswerContext): Record<string, unknown> {
    // A native answer is the upstream's message (type "message"); a translated one a chat.completion.
    const message = answer.type === "message" ? nativeMessage(answer, context) : translatedMessage(answer, context);
    if (context.request.service) message.service = { reason: context.trace };
    return message;
  },

  streamRenderer: (context: RenderContext) =>
    context.native ? new MessagesNativeStreamRenderer(context.maxHeldLength) : new MessagesTranslatedStreamRenderer(context),
  errorBody: anthropicErrorBody,
  errorFrame: anthropicErrorFrame,
};
