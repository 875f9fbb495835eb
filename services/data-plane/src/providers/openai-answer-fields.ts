// What OpenAI's live chat answers always carry besides their content, which an answer the gateway
// translates from another vendor's carries too (docs/dialects/openai-chat.md, "Translated answers"):
// OpenAI's schema requires `message.refusal` and `choices[].logprobs`, and typed clients in other
// languages fail without them; `annotations`, `service_tier` and `system_fingerprint` are in every
// recent live answer. Checked against OpenAI's published schema by openai-schema.test.ts.
import { hash } from "node:crypto";

/** The tier a translated answer was served at: the vendor's standard one, OpenAI's "default". */
export const SERVICE_TIER = "default";

/** Which backend answered, as far as the gateway knows it: the vendor and the model version it reported. */
export function systemFingerprint(vendor: string, model: string): string {
  return `fp_${hash("sha256", `${vendor}/${model}`, "hex").slice(0, 12)}`;
}

type AnswerFields = { readonly service_tier: string; readonly system_fingerprint: string };
/** Every chunk of a stream carries them: worked out once per vendor and model, not once per chunk. */
const fieldsByModel = new Map<string, AnswerFields>();
/** Upstream model versions are few; a bound all the same, as a vendor names them. */
const MAX_MODELS = 1_000;

/** The answer-level fields of a translated completion or chunk. */
export function answerFields(vendor: string, model: string): AnswerFields {
  const key = `${vendor}/${model}`;
  let fields = fieldsByModel.get(key);
  if (!fields) {
    if (fieldsByModel.size >= MAX_MODELS) fieldsByModel.clear();
    fields = { service_tier: SERVICE_TIER, system_fingerprint: systemFingerprint(vendor, model) };
    fieldsByModel.set(key, fields);
  }
  return fields;
}

/** The first delta of a translated stream opens the message as OpenAI's does: role, content (null until text comes), no refusal. */
export const openingDelta = () => ({ role: "assistant", content: null, refusal: null });

/** A translated whole answer's message fields OpenAI always sends: `refusal` (null unless the model refused) and `annotations`. */
export const messageFields = (refusal: string | null) => ({ refusal, annotations: [] as unknown[] });
