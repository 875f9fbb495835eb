// One Responses API stream event: `event: <type>` and a `data:` line whose
// JSON starts with the same `type` and the event's `sequence_number`.
export function responsesFrame(type: string, sequenceNumber: number, fields: Record<string, unknown>): string {
  return `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: sequenceNumber, ...fields })}\n\n`;
}
