// Anthropic SSE framing: each event is an `event: <type>` line, a `data: <json>`
// line and a blank line; no [DONE]. Recorded events are kept as raw text so the
// replay is byte for byte, including the whitespace the API pads before the
// closing brace of each data object (anthropic.messages.stream.recorded.sse).
import type { Json } from "./json";

export interface AnthropicEvent {
  event: string;
  /** The `data:` payload exactly as recorded. */
  data: string;
}

/** Split a recorded transcript into its events. Accepts LF or CRLF and a missing final blank line. */
export function parseAnthropicTranscript(text: string): AnthropicEvent[] {
  const events: AnthropicEvent[] = [];
  for (const block of text.replace(/\r\n/g, "\n").split("\n\n")) {
    if (block.trim() === "") continue;
    let event: string | undefined;
    let data: string | undefined;
    for (const line of block.split("\n")) {
      if (line.startsWith("event: ")) event = line.slice("event: ".length);
      else if (line.startsWith("data: ")) data = line.slice("data: ".length);
      else if (line !== "") throw new Error(`unexpected line in an Anthropic transcript: ${line}`);
    }
    if (event === undefined || data === undefined) throw new Error(`Anthropic event without event/data line: ${block}`);
    events.push({ event, data });
  }
  return events;
}

export function anthropicFrame(event: AnthropicEvent): string {
  return `event: ${event.event}\ndata: ${event.data}\n\n`;
}

/**
 * `value` as compact JSON carrying the recorded padding of `original` before its
 * closing brace, so a rewritten event differs from the recording only in the
 * values that changed (the recordings are compact apart from that padding).
 */
export function reserialize(original: string, value: Json): string {
  const padding = /(\s*)\}$/.exec(original)?.[1] ?? "";
  return `${JSON.stringify(value).slice(0, -1)}${padding}}`;
}
