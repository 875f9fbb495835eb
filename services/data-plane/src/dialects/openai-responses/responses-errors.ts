// Errors in the Responses dialect. Before any event: OpenAI's JSON error body,
// as in the chat dialect. In a stream: an `error` event, then `response.failed`
// carrying the response as it stood, as OpenAI ends a stream that fails.
import { randomUUID } from "node:crypto";
import type { GatewayError } from "@gateway/proto";
import { openAiErrorBody } from "../openai/openai-errors";
import { responsesFrame } from "./sse-frame";

export const responsesErrorBody = openAiErrorBody;

/** The two closing events of a failed stream, numbered from `sequenceNumber`; `response` is the response so far. */
export function failureFrames(error: GatewayError, sequenceNumber: number, response: Record<string, unknown>): string {
  const body = error.toBody().error;
  const { code, message } = body;
  return (
    responsesFrame("error", sequenceNumber, { error: body }) +
    responsesFrame("response.failed", sequenceNumber + 1, {
      response: { ...response, status: "failed", error: { code: String(code), message } },
    })
  );
}

/** A stream that failed before its first event (only keep-alive comments went out): the failure events alone. */
export function responsesErrorFrame(error: GatewayError): string {
  const response = {
    id: `resp_${randomUUID().replaceAll("-", "")}`,
    object: "response",
    created_at: Math.floor(Date.now() / 1000),
    status: "failed",
    error: null,
    incomplete_details: null,
    output: [],
    usage: null,
  };
  return failureFrames(error, 0, response);
}
