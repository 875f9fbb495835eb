// An upstream stream event that is not the JSON its protocol promises. Dropping
// it silently let a stream that lost part of its answer end as if complete
// (issue 19); the engine counts and logs it, and ends a stream that lost content.
import type { SseEvent } from "../upstream/sse-parser";
import type { StreamItem } from "./provider-adapter";

/** Event names that carry nothing of the answer (Anthropic's keep-alive): losing one loses nothing. */
const KEEP_ALIVES = new Set(["ping"]);

export function malformedEvent(event: SseEvent): StreamItem {
  return { kind: "malformed", lost: !KEEP_ALIVES.has(event.event) };
}
