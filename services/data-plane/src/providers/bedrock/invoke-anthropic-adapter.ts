// Claude on Bedrock through InvokeModel: the Anthropic Messages protocol with
// Bedrock's framing. Requests are the Anthropic translation's body in
// InvokeModel's form; whole answers are Anthropic Messages, read by the
// Anthropic codec; streams come as event-stream chunks around Anthropic events.
import type { UsageRecord } from "../../billing/pricing";
import type { UpstreamErrorCategory } from "../../errors";
import { AnthropicAdapter } from "../anthropic/anthropic-adapter";
import { anthropicChatRequest } from "../anthropic/build-anthropic-request";
import type {
  Endpoint,
  NativeCodec,
  ProviderAdapter,
  RequestContext,
  ResponseContext,
  StreamTranslator,
  UpstreamCall,
  UpstreamHeaders,
} from "../provider-adapter";
import { classifyBedrockError } from "./classify-bedrock-error";
import { invokeAnthropicCall } from "./invoke-anthropic-call";
import { invokeAnthropicMessagesCodec } from "./invoke-anthropic-messages-codec";
import { InvokeAnthropicStreamTranslator } from "./invoke-anthropic-stream-translator";

export class InvokeAnthropicAdapter implements ProviderAdapter {
  // The body is Anthropic's: the hold's worst case reads it as Anthropic's (billing/worst-case.ts).
  readonly protocol = "anthropic";
  private readonly anthropic = new AnthropicAdapter();

  native(dialect: string): NativeCodec | undefined {
    return this.anthropic.native(dialect) ? invokeAnthropicMessagesCodec : undefined;
  }

  supports(endpoint: Endpoint): boolean {
    return this.anthropic.supports(endpoint);
  }

  request(endpoint: Endpoint, body: Record<string, unknown>, context: RequestContext): UpstreamCall {
    if (endpoint !== "chat") return this.anthropic.request(endpoint, body, context); // throws: Anthropic has no embeddings
    return invokeAnthropicCall(anthropicChatRequest(body, context), context.upstreamModel);
  }

  response(endpoint: Endpoint, json: unknown, context: ResponseContext): Record<string, unknown> {
    return this.anthropic.response(endpoint, json, context);
  }

  usage(endpoint: Endpoint, json: unknown): UsageRecord | undefined {
    return this.anthropic.usage(endpoint, json);
  }

  stream(context: ResponseContext): StreamTranslator {
    return new InvokeAnthropicStreamTranslator(context);
  }

  classifyError(body: unknown, headers?: UpstreamHeaders): UpstreamErrorCategory | undefined {
    return classifyBedrockError(body, headers);
  }
}
