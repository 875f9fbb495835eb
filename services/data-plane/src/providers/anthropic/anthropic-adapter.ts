// The Anthropic Messages API behind the OpenAI interface: a pure translation
// (no I/O, no clock, no state between calls), one concern per file:
//   build-anthropic-request.ts        OpenAI chat body -> POST /messages (headers included)
//   convert-to-anthropic-messages.ts  messages -> system + user/assistant turns, images, tool calls and results
//   convert-to-anthropic-tools.ts     tools, tool_choice, parallel_tool_calls
//   convert-anthropic-message.ts      Message -> chat.completion
//   anthropic-stream-translator.ts    SSE events -> chat.completion.chunk items
//   convert-anthropic-usage.ts        usage (cache tokens included) -> the usage record -> OpenAI usage
//   map-anthropic-stop-reason.ts      stop_reason -> finish_reason
//   classify-anthropic-error.ts       error body -> category
//   anthropic-messages-codec.ts       the Anthropic Messages client dialect passed through as written
// Anthropic has no embeddings API: a path on an Anthropic provider is never
// routed embeddings, and being asked anyway is a programming error.
import type { UsageRecord } from "../../billing/pricing";
import type { UpstreamErrorCategory } from "../../errors";
import type {
  Endpoint,
  NativeCodec,
  ProviderAdapter,
  RequestContext,
  ResponseContext,
  StreamTranslator,
  UpstreamCall,
} from "../provider-adapter";
import { anthropicMessagesCodec } from "./anthropic-messages-codec";
import { AnthropicStreamTranslator } from "./anthropic-stream-translator";
import { buildAnthropicChatCall } from "./build-anthropic-request";
import { classifyAnthropicError } from "./classify-anthropic-error";
import { convertAnthropicMessage } from "./convert-anthropic-message";
import { readMessageUsage } from "./convert-anthropic-usage";

export class AnthropicAdapter implements ProviderAdapter {
  readonly protocol = "anthropic";
  /** The Anthropic Messages dialect is this protocol's own; every other body is translated from the shared representation. */
  native(dialect: string): NativeCodec | undefined {
    return dialect === "anthropic-messages" ? anthropicMessagesCodec : undefined;
  }

  supports(endpoint: Endpoint): boolean {
    return endpoint === "chat";
  }

  request(endpoint: Endpoint, body: Record<string, unknown>, context: RequestContext): UpstreamCall {
    if (endpoint !== "chat") throw noEmbeddings();
    return buildAnthropicChatCall(body, context);
  }

  withKey(call: UpstreamCall, apiKey: string): UpstreamCall {
    return { ...call, headers: { ...call.headers, "x-api-key": apiKey } };
  }

  response(endpoint: Endpoint, json: unknown, context: ResponseContext): Record<string, unknown> {
    if (endpoint !== "chat") throw noEmbeddings();
    return convertAnthropicMessage(json, context);
  }

  usage(endpoint: Endpoint, json: unknown): UsageRecord | undefined {
    if (endpoint !== "chat") throw noEmbeddings();
    return readMessageUsage(json);
  }

  stream(context: ResponseContext): StreamTranslator {
    return new AnthropicStreamTranslator(context);
  }

  classifyError(body: unknown): UpstreamErrorCategory | undefined {
    return classifyAnthropicError(body);
  }
}

const noEmbeddings = () => new Error('the Anthropic Messages API has no embeddings endpoint (supports("embeddings") is false)');
