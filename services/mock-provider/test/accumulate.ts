// Test-side accumulators for the `assembled` script: each folds what a client
// reads from a stream (content, tool calls, finish reason, usage) into a
// summary, and reads the same summary off a non-stream body, so the two can be
// compared exactly. Written independently of src/assemble-*.ts on purpose.
import type { Json } from "./helpers";

export interface ChatSummary {
  content: string | null;
  refusal: string | null;
  toolCalls: { id: string; type: string; name: string; arguments: string }[];
  images: unknown[] | undefined;
  finishReason: unknown;
  nativeFinishReason?: unknown;
  usage: unknown;
}

/** Chat Completions chunks (choice 0) as a client SDK accumulates them. */
export function accumulateChatStream(chunks: Json[]): ChatSummary {
  const summary: ChatSummary = { content: null, refusal: null, toolCalls: [], images: undefined, finishReason: null, usage: undefined };
  const calls: Json[] = [];
  for (const chunk of chunks) {
    if (chunk.usage) summary.usage = chunk.usage;
    const choice = chunk.choices?.[0];
    if (!choice) continue;
    const delta = choice.delta ?? {};
    if (typeof delta.content === "string") summary.content = (summary.content ?? "") + delta.content;
    if (typeof delta.refusal === "string") summary.refusal = (summary.refusal ?? "") + delta.refusal;
    for (const call of delta.tool_calls ?? []) {
      const known = calls[call.index];
      if (known) known.arguments += call.function?.arguments ?? "";
      else calls[call.index] = { id: call.id, type: call.type, name: call.function.name, arguments: call.function.arguments ?? "" };
    }
    if (delta.images) summary.images = [...(summary.images ?? []), ...delta.images];
    if (choice.finish_reason != null) {
      summary.finishReason = choice.finish_reason;
      if ("native_finish_reason" in choice) summary.nativeFinishReason = choice.native_finish_reason;
    }
  }
  summary.toolCalls = calls as ChatSummary["toolCalls"];
  return summary;
}

export function summarizeCompletion(body: Json): ChatSummary {
  const choice = body.choices[0];
  const message = choice.message;
  const summary: ChatSummary = {
    content: message.content,
    refusal: message.refusal,
    toolCalls: (message.tool_calls ?? []).map((call: Json) => ({
      id: call.id,
      type: call.type,
      name: call.function.name,
      arguments: call.function.arguments,
    })),
    images: message.images,
    finishReason: choice.finish_reason,
    usage: body.usage,
  };
  if ("native_finish_reason" in choice) summary.nativeFinishReason = choice.native_finish_reason;
  return summary;
}

export interface MessageSummary {
  blocks: Json[];
  stopReason: unknown;
  inputTokens: unknown;
  outputTokens: unknown;
}

/** Anthropic stream events (parsed data) folded block by block. */
export function accumulateMessageStream(events: Json[]): MessageSummary {
  const blocks: Json[] = [];
  const json: string[] = [];
  const summary: MessageSummary = { blocks, stopReason: null, inputTokens: undefined, outputTokens: undefined };
  for (const event of events) {
    if (event.type === "message_start") {
      summary.inputTokens = event.message.usage.input_tokens;
      summary.outputTokens = event.message.usage.output_tokens;
    } else if (event.type === "content_block_start") {
      const block = event.content_block;
      blocks[event.index] =
        block.type === "tool_use" ? { type: "tool_use", id: block.id, name: block.name } : { type: block.type, text: block.text };
      json[event.index] = "";
    } else if (event.type === "content_block_delta") {
      if (event.delta.type === "text_delta") blocks[event.index]!.text += event.delta.text;
      if (event.delta.type === "input_json_delta") json[event.index] += event.delta.partial_json;
    } else if (event.type === "content_block_stop" && blocks[event.index]!.type === "tool_use") {
      blocks[event.index]!.input = JSON.parse(json[event.index] || "{}");
    } else if (event.type === "message_delta") {
      summary.stopReason = event.delta.stop_reason;
      summary.outputTokens = event.usage.output_tokens;
    }
  }
  return summary;
}

export function summarizeMessage(body: Json): MessageSummary {
  return {
    blocks: body.content.map((block: Json) =>
      block.type === "tool_use"
        ? { type: "tool_use", id: block.id, name: block.name, input: block.input }
        : { type: block.type, text: block.text },
    ),
    stopReason: body.stop_reason,
    inputTokens: body.usage.input_tokens,
    outputTokens: body.usage.output_tokens,
  };
}

export interface GenerateSummary {
  text: string;
  functionCalls: unknown[];
  inlineData: unknown[];
  finishReason: unknown;
  usageMetadata: unknown;
}

/** Gemini responses (one or many): every text part joined, other parts listed, the last finishReason and usage. */
export function summarizeGenerate(responses: Json[]): GenerateSummary {
  const summary: GenerateSummary = { text: "", functionCalls: [], inlineData: [], finishReason: undefined, usageMetadata: undefined };
  for (const response of responses) {
    const candidate = response.candidates?.[0] ?? {};
    for (const part of candidate.content?.parts ?? []) {
      if (typeof part.text === "string") summary.text += part.text;
      if (part.functionCall) summary.functionCalls.push(part.functionCall);
      if (part.inlineData) summary.inlineData.push(part.inlineData);
    }
    if (candidate.finishReason !== undefined) summary.finishReason = candidate.finishReason;
    if (response.usageMetadata !== undefined) summary.usageMetadata = response.usageMetadata;
  }
  return summary;
}
