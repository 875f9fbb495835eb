// The text of OpenAI's `message.refusal` for an Anthropic answer that stopped
// with stop_reason "refusal". Anthropic says why only in `stop_details`
// (structured, sometimes with an `explanation`); OpenAI clients detect a
// refusal by a non-empty `refusal` string, so one is always given. Text the
// model wrote before it was stopped stays in `content`: a stream has already
// sent it, and the non-streamed answer must agree with the stream.
import { isRecord, nonEmptyString } from "./json-values";

export const DEFAULT_REFUSAL = "The model declined to continue this answer.";

export function refusalText(stopDetails: unknown): string {
  return (isRecord(stopDetails) ? nonEmptyString(stopDetails.explanation) : undefined) ?? DEFAULT_REFUSAL;
}
