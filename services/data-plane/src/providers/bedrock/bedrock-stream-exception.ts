// The event-stream messages that are not part of an answer: exception frames
// (`exception:throttlingException`, `exception:modelStreamErrorException`, ...) and
// error frames (`error:<code>`), as the AWS event-stream parser names them.
// Either ends the answer after HTTP 200 (the stream stops there).
import type { SseEvent } from "../../upstream/sse-parser";
import type { StreamItem } from "../provider-adapter";
import { classifyBedrockException } from "./classify-bedrock-error";

/** The error item for an exception or error frame; undefined for an event frame. */
export function streamFailure(event: SseEvent): StreamItem | undefined {
  if (event.event.startsWith("exception:"))
    return { kind: "error", category: classifyBedrockException(event.event.slice("exception:".length)) };
  if (event.event.startsWith("error:")) return { kind: "error" };
  return undefined;
}
