// An Anthropic Messages request (the object the Anthropic codec builds for POST /messages) in
// Bedrock's InvokeModel form: the model moves into the path, `stream` becomes the choice of operation,
// `anthropic_version` names Bedrock's Messages version, and the client's `anthropic-beta` header
// values move into the body's `anthropic_beta` array (Bedrock reads no Anthropic headers).
import type { JsonObject } from "../chat-usage";
import type { UpstreamCall } from "../provider-adapter";
import { modelPath } from "./bedrock-model-id";

export const BEDROCK_ANTHROPIC_VERSION = "bedrock-2023-05-31";

/** The media type of AWS's binary event stream (InvokeModelWithResponseStream, ConverseStream). */
export const EVENT_STREAM_TYPE = "application/vnd.amazon.eventstream";

/** @param betaHeader the client's `anthropic-beta` header (a native Messages client's), comma-separated. */
export function invokeAnthropicCall(request: JsonObject, modelId: string, betaHeader?: string): UpstreamCall {
  const { model: _model, stream, ...fields } = request;
  const body: JsonObject = { anthropic_version: BEDROCK_ANTHROPIC_VERSION, ...fields };
  const betas = betaValues(betaHeader);
  if (betas.length > 0) body.anthropic_beta = betas;
  const streamed = stream === true;
  return {
    path: modelPath(modelId, streamed ? "invoke-with-response-stream" : "invoke"),
    headers: bedrockJsonHeaders(streamed),
    body: JSON.stringify(body),
  };
}

/** content-type and accept of a Bedrock call; a stream also says its events' payload type, as the AWS SDKs do. */
export function bedrockJsonHeaders(streamed: boolean): Record<string, string> {
  return streamed
    ? { "content-type": "application/json", accept: EVENT_STREAM_TYPE, "x-amzn-bedrock-accept": "application/json" }
    : { "content-type": "application/json", accept: "application/json" };
}

/** `anthropic-beta: a,b` (comma-separated, as clients send it) -> ["a", "b"]. */
function betaValues(header: string | undefined): string[] {
  return (header ?? "")
    .split(",")
    .map((value) => value.trim())
    .filter((value) => value.length > 0);
}
