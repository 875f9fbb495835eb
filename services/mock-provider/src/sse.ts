// OpenAI SSE framing: one `data: <json>` line per event, blank line between,
// `data: [DONE]` at the end, no `event:` lines.

export const DONE_FRAME = "data: [DONE]\n\n";

export function frame(payload: string): string {
  return `data: ${payload}\n\n`;
}

/**
 * Split a recorded transcript into the JSON payloads of its events, dropping the
 * [DONE] sentinel (the mock always appends its own). Accepts LF or CRLF framing.
 */
export function parseTranscript(text: string): Record<string, unknown>[] {
  const events: Record<string, unknown>[] = [];
  for (const block of text.replace(/\r\n/g, "\n").split("\n\n")) {
    const data = block
      .split("\n")
      .filter((line) => line.startsWith("data:"))
      .map((line) => line.slice(5).replace(/^ /, ""))
      .join("\n");
    if (data === "" || data === "[DONE]") continue;
    events.push(JSON.parse(data) as Record<string, unknown>);
  }
  return events;
}
