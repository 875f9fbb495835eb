// Errors in the OpenAI dialects: {"error":{"type","code","message","param"}}, as a
// JSON body or as one SSE `data:` event.
import type { ErrorBody, GatewayError } from "@gateway/proto";

export const openAiErrorBody = (error: GatewayError): ErrorBody => error.toBody();

export const openAiErrorFrame = (error: GatewayError): string => `data: ${JSON.stringify(error.toBody())}\n\n`;
