// ConverseStream events (AWS event stream, named by `:event-type`) -> OpenAI
// `chat.completion.chunk`s.
//
//   messageStart                      -> nothing yet: role "assistant" rides on the first chunk that follows
//   contentBlockStart start.toolUse   -> delta.tool_calls[{index, id, type, function {name, arguments: ""}}]
//   contentBlockDelta delta.text      -> delta.content
//   ... delta.toolUse.input           -> delta.tool_calls[{index, function {arguments: fragment}}]
//   ... delta.reasoningContent.text   -> delta.reasoning (OpenRouter's field); its signature: nothing
//   contentBlockStop                  -> nothing (a tool call that got no argument text gets "{}")
//   messageStop                       -> final chunk with finish_reason
//   metadata                          -> usage-only chunk (choices: []), then done: it is the LAST frame
//   exception frames                  -> error item
// Text blocks have no contentBlockStart; tool calls are numbered among tool calls only, as OpenAI does,
// while `contentBlockIndex` counts every block.
import type { SseEvent } from "../../upstream/sse-parser";
import { isRecord, type JsonObject } from "../chat-usage";
import { ChunkWriter } from "../chunk-writer";
import { malformedEvent } from "../malformed-event";
import type { ResponseContext, StreamItem, StreamTranslator } from "../provider-adapter";
import { streamFailure } from "./bedrock-stream-exception";
import { readConverseUsage } from "./converse-usage";
import { mapConverseStopReason } from "./map-converse-stop-reason";

interface ToolBlock {
  toolIndex: number;
  argumentText: string;
}

export class ConverseStreamTranslator implements StreamTranslator {
  readonly framing = "aws-eventstream";
  private readonly tools = new Map<number, ToolBlock>();
  private toolCallCount = 0;
  private readonly out: ChunkWriter;
  private over = false;

  constructor(context: ResponseContext) {
    this.out = new ChunkWriter(context, "bedrock");
  }

  push(event: SseEvent): StreamItem[] {
    if (this.over) return [];
    const failure = streamFailure(event);
    if (failure) {
      this.over = true;
      return [failure];
    }
    let data: unknown;
    try {
      data = JSON.parse(event.data);
    } catch {
      return [malformedEvent(event)];
    }
    if (!isRecord(data)) return [malformedEvent(event)];
    switch (event.event) {
      case "messageStart":
        this.out.rolePending = true;
        return [];
      case "contentBlockStart":
        return this.blockStart(data);
      case "contentBlockDelta":
        return this.blockDelta(data);
      case "contentBlockStop":
        return this.blockStop(data);
      case "messageStop":
        return this.out.finishSent ? [] : [this.out.finish(mapConverseStopReason(data.stopReason))];
      case "metadata":
        return this.metadata(data);
      default:
        return []; // event types added after this translator was written
    }
  }

  /** A body that ends before `metadata` is cut short: nothing to add (the engine treats it as a failure). */
  end(): StreamItem[] {
    return [];
  }

  private blockStart(data: JsonObject): StreamItem[] {
    const start = isRecord(data.start) ? data.start : {};
    const toolUse = isRecord(start.toolUse) ? start.toolUse : undefined;
    if (!toolUse) return [];
    const toolIndex = this.toolCallCount++;
    this.tools.set(blockIndex(data), { toolIndex, argumentText: "" });
    const call = { index: toolIndex, id: toolUse.toolUseId, type: "function", function: { name: toolUse.name, arguments: "" } };
    return [this.out.chunk({ tool_calls: [call] })];
  }

  private blockDelta(data: JsonObject): StreamItem[] {
    const delta = isRecord(data.delta) ? data.delta : {};
    if (typeof delta.text === "string") return delta.text === "" ? [] : [this.out.chunk({ content: delta.text })];
    if (isRecord(delta.toolUse)) {
      const tool = this.tools.get(blockIndex(data));
      const fragment = delta.toolUse.input;
      if (!tool || typeof fragment !== "string" || fragment === "") return [];
      tool.argumentText += fragment;
      return [this.out.chunk({ tool_calls: [{ index: tool.toolIndex, function: { arguments: fragment } }] })];
    }
    if (isRecord(delta.reasoningContent) && typeof delta.reasoningContent.text === "string" && delta.reasoningContent.text !== "")
      return [this.out.chunk({ reasoning: delta.reasoningContent.text })];
    return [];
  }

  private blockStop(data: JsonObject): StreamItem[] {
    const tool = this.tools.get(blockIndex(data));
    // OpenAI clients parse the arguments, and the whole answer says "{}": the stream says it too.
    if (!tool) return [];
    if (tool.argumentText.trim() !== "") return [];
    tool.argumentText = "{}";
    return [this.out.chunk({ tool_calls: [{ index: tool.toolIndex, function: { arguments: "{}" } }] })];
  }

  private metadata(data: JsonObject): StreamItem[] {
    this.over = true;
    const items: StreamItem[] = [];
    if (!this.out.finishSent) items.push(this.out.finish("stop"));
    const usage = readConverseUsage(data.usage);
    if (usage) items.push(this.out.usage(usage));
    items.push({ kind: "done" });
    return items;
  }
}

const blockIndex = (data: JsonObject): number => (typeof data.contentBlockIndex === "number" ? data.contentBlockIndex : -1);
