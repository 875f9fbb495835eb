// The `data:` payloads of an SSE body, in order (test helper).
export function sseData(text: string): string[] {
  return text
    .split("\n\n")
    .map((event) => event.trim())
    .filter((event) => event.startsWith("data: "))
    .map((event) => event.slice("data: ".length));
}
