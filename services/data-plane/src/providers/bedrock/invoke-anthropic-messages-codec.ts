// The Anthropic Messages client dialect spoken natively by Claude on Bedrock:
// the client's body is allowlisted and capped as for Anthropic, then takes
// Bedrock's InvokeModel form (invoke-anthropic-call.ts). Whole answers
// are Anthropic Messages as they are; streams are relayed as the Anthropic
// events inside the event-stream chunks. Bedrock has no count_tokens for the
// Messages body, so the codec offers none.
import { anthropicMessagesCodec, forwardedClientHeaders, messagesRequest } from "../anthropic/anthropic-messages-codec";
import type { NativeCodec } from "../provider-adapter";
import { invokeAnthropicCall } from "./invoke-anthropic-call";
import { InvokeAnthropicStreamTranslator } from "./invoke-anthropic-stream-translator";

export const invokeAnthropicMessagesCodec: NativeCodec = {
  call: (body, context, maxTokens) =>
    invokeAnthropicCall(
      messagesRequest(body, context, maxTokens),
      context.upstreamModel,
      forwardedClientHeaders(context)["anthropic-beta"],
    ),
  response: anthropicMessagesCodec.response,
  usage: anthropicMessagesCodec.usage,
  stream: (context) => new InvokeAnthropicStreamTranslator(context),
};
