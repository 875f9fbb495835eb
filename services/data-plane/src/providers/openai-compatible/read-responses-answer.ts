// A whole Responses API answer read into a chat.completion, for the usage
// meter (and its estimate when no usage was reported): the client gets the
// upstream's own body.
import { chatUsage } from "../chat-usage";
import type { ResponseContext } from "../provider-adapter";
import { readResponsesUsage } from "./responses-usage";

interface OutputItem {
  type?: unknown;
  content?: unknown;
  summary?: unknown;
  call_id?: unknown;
  name?: unknown;
  arguments?: unknown;
}

const texts = (parts: unknown, type: string): string =>
  Array.isArray(parts)
    ? parts
        .filter((part) => part?.type === type && typeof part.text === "string")
        .map((part) => part.text as string)
        .join("")
    : "";

/** Throws when the body is not a response that finished (an error, a failed response, no output list). */
export function readResponsesAnswer(json: unknown, context: ResponseContext): Record<string, unknown> {
  if (typeof json !== "object" || json === null || Array.isArray(json)) throw new Error("not an object");
  const body = json as Record<string, unknown>;
  if (body.error !== undefined && body.error !== null) throw new Error("an error with status 200");
  if (!Array.isArray(body.output)) throw new Error("not a response");
  const items = body.output as OutputItem[];
  let content = "";
  let reasoning = "";
  const toolCalls: Record<string, unknown>[] = [];
  for (const item of items) {
    if (item.type === "message") content += texts(item.content, "output_text");
    if (item.type === "reasoning") reasoning += texts(item.summary, "summary_text");
    if (item.type === "function_call")
      toolCalls.push({ id: item.call_id, type: "function", function: { name: item.name, arguments: item.arguments } });
  }
  const message: Record<string, unknown> = { role: "assistant", content: content === "" && toolCalls.length > 0 ? null : content };
  if (reasoning !== "") message.reasoning = reasoning;
  if (toolCalls.length > 0) message.tool_calls = toolCalls;
  const record = readResponsesUsage(body);
  const usage = record && chatUsage(record);
  return {
    id: typeof body.id === "string" ? body.id : context.id,
    object: "chat.completion",
    created: typeof body.created_at === "number" ? body.created_at : context.created,
    model: typeof body.model === "string" ? body.model : context.model,
    choices: [{ index: 0, message, finish_reason: finishReason(body, toolCalls.length > 0) }],
    ...(usage ? { usage } : {}),
  };
}

/** The chat finish reason a response's status and output amount to. */
export function finishReason(response: { status?: unknown; incomplete_details?: unknown }, calledTools: boolean): string {
  if (response.status === "incomplete") {
    const reason = (response.incomplete_details as { reason?: unknown } | null)?.reason;
    return reason === "content_filter" ? "content_filter" : "length";
  }
  return calledTools ? "tool_calls" : "stop";
}
