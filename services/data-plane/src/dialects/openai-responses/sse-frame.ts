// One Responses API stream event: `event: <type>` and a `data:` line whose
// JSON starts with the same `type` and the event's `sequence_number`.
import { namedFrame } from "../sse-frames";
export function responsesFrame(type: string, sequenceNumber: number, fields: Record<string, unknown>): string {
  return namedFrame(type, { type, sequence_number: sequenceNumber, ...fields });
}
