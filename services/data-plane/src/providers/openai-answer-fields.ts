// What OpenAI's live chat answers always carry besides their content, which an answer the gateway
// translates from another vendor's carries too (docs/dialects/openai-chat.md, "Translated answers"):
// OpenAI's schema requires `message.refusal` and `choices[].logprobs`, and typed clients in other
// languages fail without them; `annotations`, `service_tier` and `system_fingerprint` are in every
// recent live answer. Checked against OpenAI's published schema by openai-schema.test.ts.
import { createHash } from "node:crypto";

/** The tier a translated answer was served at: the vendor's standard one, OpenAI's "default". */
const SERVICE_TIER = "default";

/** Which backend answered, as far as the gateway knows it: the vendor and the model version it reported. */
export function systemFingerprint(vendor: string, model: string): string {
  return `fp_${createHash("sha256").update(`${vendor}/${model}`).digest("hex").slice(0, 12)}`;
}

/** The answer-level fields of a translated completion or chunk. */
export const answerFields = (vendor: string, model: string) => ({
  service_tier: SERVICE_TIER,
  system_fingerprint: systemFingerprint(vendor, model),
});

/** A translated whole answer's message fields OpenAI always sends: `refusal` (null unless the model refused) and `annotations`. */
export const messageFields = (refusal: string | null) => ({ refusal, annotations: [] as unknown[] });
