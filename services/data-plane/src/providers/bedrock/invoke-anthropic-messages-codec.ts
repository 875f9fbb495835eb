// The Anthropic Messages client dialect spoken natively by Claude on Bedrock:
// the client's body is allowlisted and capped by the Anthropic codec, then
// takes Bedrock's InvokeModel form (invoke-anthropic-call.ts). Whole answers
// are Anthropic Messages as they are; streams are relayed as the Anthropic
// events inside the event-stream chunks. Bedrock has no count_tokens for the
// Messages body, so the codec offers none.
import { anthropicMessagesCodec } from "../anthropic/anthropic-messages-codec";
import type { NativeCodec } from "../provider-adapter";
import { invokeAnthropicCall } from "./invoke-anthropic-call";
import { InvokeAnthropicStreamTranslator } from "./invoke-anthropic-stream-translator";

export const invokeAnthropicMessagesCodec: NativeCodec = {
  call: (body, context, maxTokens) => invokeAnthropicCall(anthropicMessagesCodec.call(body, context, maxTokens), context.upstreamModel),
  response: anthropicMessagesCodec.response,
  usage: anthropicMessagesCodec.usage,
  stream: (context) => new InvokeAnthropicStreamTranslator(context),
};
