// Worst-case token counts for the hold placed before forwarding. Input: the
// forwarded body's UTF-8 bytes bound its text tokens (a byte-level BPE token is
// at least one byte), plus a fixed allowance per image part, whose tokens do
// not depend on the bytes sent. Output: the larger of the caller's
// max_completion_tokens and max_tokens (an upstream may honour either), or the
// model's maximum output, times the number of choices.
export const TOKENS_PER_IMAGE_ALLOWANCE = 3_000;

export function countImageParts(messages: unknown): number {
  if (!Array.isArray(messages)) return 0;
  let count = 0;
  for (const message of messages) {
    const content = (message as { content?: unknown } | null)?.content;
    if (!Array.isArray(content)) continue;
    for (const part of content) if ((part as { type?: unknown } | null)?.type === "image_url") count++;
  }
  return count;
}

export function chatInputUpperBound(forwardedBodyBytes: number, messages: unknown): number {
  return forwardedBodyBytes + TOKENS_PER_IMAGE_ALLOWANCE * countImageParts(messages);
}

export function chatOutputUpperBound(body: Record<string, unknown>, modelMaxOutput: number, modelContext: number): number {
  const requested = [body.max_completion_tokens, body.max_tokens].filter(
    (value): value is number => typeof value === "number" && Number.isInteger(value) && value > 0,
  );
  const perChoice = requested.length > 0 ? Math.max(...requested) : modelMaxOutput > 0 ? modelMaxOutput : modelContext;
  const choices = typeof body.n === "number" && Number.isInteger(body.n) && body.n > 1 ? body.n : 1;
  return perChoice * choices;
}

/**
 * Images an answer may carry when the caller asked for image output
 * (`modalities` with "image"), for paths priced per image. Models generate one
 * image per answer as a rule; the bound allows a few, and an answer beyond it
 * is billed up to the hold (docs/money.md, "actual cost above the worst case").
 */
export const IMAGES_PER_ANSWER_BOUND = 4;

export function chatImageUpperBound(body: Record<string, unknown>): number {
  const modalities = Array.isArray(body.modalities) ? body.modalities : [];
  if (!modalities.includes("image")) return 0;
  const choices = typeof body.n === "number" && Number.isInteger(body.n) && body.n > 1 ? body.n : 1;
  return IMAGES_PER_ANSWER_BOUND * choices;
}

/** Images in an OpenAI-shaped message or delta (`images: [{type:"image_url", ...}]`, OpenRouter's shape). */
export function countImages(messageOrDelta: unknown): number {
  const images = (messageOrDelta as { images?: unknown } | null)?.images;
  return Array.isArray(images) ? images.length : 0;
}

/** Rough token count of produced text, used only when an upstream reports no usage. */
export const estimateTokens = (text: string): number => (text.length === 0 ? 0 : Math.ceil(Buffer.byteLength(text) / 4));
