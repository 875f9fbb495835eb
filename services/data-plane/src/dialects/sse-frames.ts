// SSE frames of the dialects whose events are named (Responses, Messages):
// one written by the gateway, and one relayed as the upstream sent it.
import type { SseEvent } from "../upstream/sse-parser";

/** `event: <name>` and one `data:` line of JSON. */
export const namedFrame = (name: string, data: unknown): string => `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;

/** An upstream event as it came: its name (none for the default "message") and its data, line by line. */
export function relayedFrame(event: SseEvent): string {
  const name = event.event === "message" ? "" : `event: ${event.event}\n`;
  return `${name}${event.data
    .split("\n")
    .map((line) => `data: ${line}\n`)
    .join("")}\n`;
}
