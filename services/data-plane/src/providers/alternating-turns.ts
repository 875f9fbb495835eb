// Chat messages as the upstreams that take strictly alternating user and assistant turns want them
// (Anthropic's Messages, Bedrock's Converse): system and developer text set apart, tool results as
// the user's turn, consecutive messages of one role merged, and a message with nothing to say dropped
// (both refuse empty content). Each upstream converts the content; this walks the conversation once.
import { isRecord, type JsonObject } from "./chat-usage";

export interface TurnConverters<Block> {
  system(content: unknown): Block[];
  user(content: unknown): Block[];
  assistant(message: JsonObject): Block[];
  tool(message: JsonObject): Block[];
}

export interface AlternatingTurns<Block> {
  system: Block[];
  turns: { role: "user" | "assistant"; blocks: Block[] }[];
}

export function alternatingTurns<Block>(messages: unknown, convert: TurnConverters<Block>): AlternatingTurns<Block> {
  const system: Block[] = [];
  const turns: AlternatingTurns<Block>["turns"] = [];
  const append = (role: "user" | "assistant", blocks: Block[]) => {
    if (blocks.length === 0) return;
    const last = turns.at(-1);
    if (last?.role === role) last.blocks.push(...blocks);
    else turns.push({ role, blocks });
  };
  for (const message of Array.isArray(messages) ? messages : []) {
    if (!isRecord(message)) continue;
    switch (message.role) {
      case "system":
      case "developer":
        system.push(...convert.system(message.content));
        break;
      case "user":
        append("user", convert.user(message.content));
        break;
      case "assistant":
        append("assistant", convert.assistant(message));
        break;
      case "tool":
        append("user", convert.tool(message));
        break;
    }
  }
  return { system, turns };
}
