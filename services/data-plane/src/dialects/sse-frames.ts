// SSE frames of the dialects whose events are named (Responses, Messages):
// one written by the gateway, and one relayed as the upstream sent it.
import type { SseEvent } from "../upstream/sse-parser";

/** `event: <name>` and one `data:` line of JSON. */
export const namedFrame = (name: string, data: unknown): string => `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;

/**
 * `frames` with `field` added to the JSON object of the last event that has one (in a single `data:`
 * line; an OpenAI `[DONE]` has none); unchanged when no event has.
 */
export function withFieldInLastEvent(frames: string, field: string, value: unknown): string {
  const events = frames.split("\n\n");
  for (let index = events.length - 1; index >= 0; index--) {
    const lines = events[index]!.split("\n");
    const data = lines.flatMap((line, at) => (line.startsWith("data:") ? [at] : []));
    if (data.length !== 1) continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(lines[data[0]!]!.slice(5));
    } catch {
      continue;
    }
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) continue;
    lines[data[0]!] = `data: ${JSON.stringify({ ...parsed, [field]: value })}`;
    events[index] = lines.join("\n");
    return events.join("\n\n");
  }
  return frames;
}

/** An upstream event as it came: its name (none for the default "message") and its data, line by line. */
export function relayedFrame(event: SseEvent): string {
  const name = event.event === "message" ? "" : `event: ${event.event}\n`;
  return `${name}${event.data
    .split("\n")
    .map((line) => `data: ${line}\n`)
    .join("")}\n`;
}
