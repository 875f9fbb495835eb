// The Responses `response` object (keys in OpenAI's order) and its output
// items, built from a chat answer in the shared representation: the whole
// answer of a translated request, and the snapshots a translated stream sends.
import type { ClientRequest } from "../client-dialect";
import { SERVICE_TIER } from "../../providers/openai-answer-fields";
import { reasoningText } from "../reasoning-text";

export type ResponseStatus = "in_progress" | "completed" | "incomplete" | "failed";

/** The ids one answer's objects take, from the gateway's request id (OpenAI's prefixes). */
export class ResponseIds {
  private readonly hex: string;
  private calls = 0;
  private messages = 0;
  private reasonings = 0;

  constructor(requestId: string) {
    this.hex = requestId.replaceAll("-", "");
  }

  get response(): string {
    return `resp_${this.hex}`;
  }

  /** Every item of one answer has its own id, numbered per kind (an answer may hold several of each). */
  nextMessage(): string {
    return `msg_${this.hex}_${this.messages++}`;
  }

  nextReasoning(): string {
    return `rs_${this.hex}_${this.reasonings++}`;
  }

  nextFunctionCall(): string {
    return `fc_${this.hex}_${this.calls++}`;
  }
}

const orNull = (value: unknown) => (value === undefined ? null : value);

/** A function tool of the request as OpenAI echoes it: every field there, null where the request gave none. */
const echoedTool = (tool: unknown) => {
  const given = (typeof tool === "object" && tool !== null ? tool : {}) as Record<string, unknown>;
  return {
    type: "function",
    description: orNull(given.description),
    name: given.name,
    parameters: orNull(given.parameters),
    strict: orNull(given.strict),
  };
};

/**
 * A response with the request's settings echoed, as OpenAI answers, with every field OpenAI's live
 * responses carry (docs/dialects/openai-responses.md); output and usage are filled in by the caller.
 */
export function responseShell(
  request: ClientRequest,
  fields: { id: string; createdAt: number; status: ResponseStatus; model: unknown; output: unknown[]; usage: unknown },
): Record<string, unknown> {
  const original = request.original;
  const reasoning = (typeof original.reasoning === "object" && original.reasoning !== null ? original.reasoning : {}) as Record<
    string,
    unknown
  >;
  const text = (typeof original.text === "object" && original.text !== null ? original.text : {}) as Record<string, unknown>;
  return {
    id: fields.id,
    object: "response",
    created_at: fields.createdAt,
    status: fields.status,
    background: false,
    error: null,
    incomplete_details: null,
    instructions: orNull(original.instructions),
    max_output_tokens: orNull(original.max_output_tokens),
    max_tool_calls: orNull(original.max_tool_calls),
    model: fields.model,
    output: fields.output,
    parallel_tool_calls: original.parallel_tool_calls ?? true,
    previous_response_id: null,
    prompt_cache_key: orNull(original.prompt_cache_key),
    reasoning: { effort: orNull(reasoning.effort), summary: orNull(reasoning.summary) },
    safety_identifier: orNull(original.safety_identifier),
    // The vendor's standard tier, as a translated chat answer says (providers/openai-answer-fields.ts).
    service_tier: SERVICE_TIER,
    store: false,
    temperature: orNull(original.temperature),
    text: { format: text.format ?? { type: "text" } },
    tool_choice: original.tool_choice ?? "auto",
    tools: Array.isArray(original.tools) ? original.tools.map(echoedTool) : [],
    top_logprobs: original.top_logprobs ?? 0,
    top_p: orNull(original.top_p),
    truncation: "disabled",
    usage: fields.usage,
    user: orNull(original.user),
    metadata: original.metadata ?? {},
  };
}

/** `completed`, or `incomplete` with its reason for a chat answer cut by its token limit or a content filter. */
export function statusOf(finishReason: unknown): { status: "completed" | "incomplete"; incomplete: { reason: string } | null } {
  if (finishReason === "length") return { status: "incomplete", incomplete: { reason: "max_output_tokens" } };
  if (finishReason === "content_filter") return { status: "incomplete", incomplete: { reason: "content_filter" } };
  return { status: "completed", incomplete: null };
}

export const reasoningItem = (id: string, text: string) => ({ id, type: "reasoning", summary: [{ type: "summary_text", text }] });

export const outputTextPart = (text: string) => ({ type: "output_text", annotations: [], logprobs: [], text });

export const refusalPart = (refusal: string) => ({ type: "refusal", refusal });

export const messageItem = (id: string, status: string, content: unknown[]) => ({
  id,
  type: "message",
  status,
  content,
  role: "assistant",
});

export const functionCallItem = (id: string, status: string, call: { callId: unknown; name: unknown; arguments: string }) => ({
  id,
  type: "function_call",
  status,
  arguments: call.arguments,
  call_id: call.callId,
  name: call.name,
});

interface ChatMessage {
  content?: unknown;
  refusal?: unknown;
  reasoning?: unknown;
  reasoning_content?: unknown;
  tool_calls?: { id?: unknown; function?: { name?: unknown; arguments?: unknown } }[];
}

/** A chat message's text: a string, or the text of its parts. */
export function messageText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((part) => (typeof part?.text === "string" ? part.text : "")).join("");
}

/** The output items of one chat message: reasoning, then the message (unless only tools were called), then the function calls. */
export function outputItems(message: ChatMessage, ids: ResponseIds, itemStatus: string): Record<string, unknown>[] {
  const items: Record<string, unknown>[] = [];
  const reasoning = reasoningText(message);
  if (reasoning !== "") items.push(reasoningItem(ids.nextReasoning(), reasoning));
  const calls = Array.isArray(message.tool_calls) ? message.tool_calls : [];
  const text = messageText(message.content);
  const refusal = typeof message.refusal === "string" && message.refusal !== "" ? message.refusal : undefined;
  if (refusal !== undefined) items.push(messageItem(ids.nextMessage(), itemStatus, [refusalPart(refusal)]));
  else if (text !== "" || calls.length === 0) items.push(messageItem(ids.nextMessage(), itemStatus, [outputTextPart(text)]));
  for (const call of calls) {
    const args = typeof call.function?.arguments === "string" ? call.function.arguments : "";
    items.push(functionCallItem(ids.nextFunctionCall(), "completed", { callId: call.id, name: call.function?.name, arguments: args }));
  }
  return items;
}
