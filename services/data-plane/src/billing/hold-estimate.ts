// What a request's body says about the most it may use, read for the hold
// placed before forwarding (worst-case.ts puts it together and prices it).
// Input: the forwarded body's UTF-8 bytes bound its text tokens (a byte-level
// BPE token is at least one byte), and each media part counts an allowance,
// its tokens not depending on the bytes sent. Output: the larger of the
// caller's max_completion_tokens and max_tokens (an upstream may honour
// either), else the model's maximum output, times the number of choices.
export const TOKENS_PER_IMAGE_ALLOWANCE = 5_000;

/** Image parts in OpenAI chat messages (`image_url`): the context filter and token estimates read them. */
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

/** What the hold reads from the forwarded body's JSON text, whatever the upstream's shape. */
export interface BodyMarks {
  /**
   * Media parts: OpenAI `image_url` and `file`, Responses `input_image` and `input_file`, Anthropic
   * `image` and `document`, Gemini `inlineData` and `fileData`.
   */
  mediaParts: number;
  /** Audio input: OpenAI `input_audio` parts or an earlier answer's audio, Gemini inline audio. */
  audioInput: boolean;
  /** Whether the body can write a prompt cache (Anthropic's `cache_control`, anywhere), and for how long. */
  cacheWrite: "none" | "5m" | "1h";
  /** Every `service_tier` named (a nested one too: taking it can only raise the bound). */
  serviceTiers: string[];
}

/**
 * One pass for every mark: on a 1 MB prompt the scan costs as much as parsing the body, so it runs
 * once, not once per mark. The body is JSON.stringify's output: a quote inside a string is escaped,
 * so text a caller wrote never matches, and a key's closing quote is followed by `:`. A match takes
 * only its key (a value is read by lookahead), so no match takes the start of another, and a value
 * naming another key, as `"type":"cache_control"` does, is still read.
 */
const MARK =
  /"(?:type":(?="(image_url|input_image|image|document|file|input_file|input_audio)")|(?:inlineData|fileData)":|audio":\{|mimeType":(?="audio\/)|service_tier":(?="([^"\\]*)")|cache_control"|ttl":(?="1h"))/g;

export function bodyMarks(forwardedBody: string): BodyMarks {
  const marks: BodyMarks = { mediaParts: 0, audioInput: false, cacheWrite: "none", serviceTiers: [] };
  let cacheControl = false;
  let hourLong = false;
  for (const match of forwardedBody.matchAll(MARK)) {
    const [text, partType, tier] = match;
    if (partType !== undefined) {
      if (partType === "input_audio") marks.audioInput = true;
      else marks.mediaParts++;
    } else if (tier !== undefined) marks.serviceTiers.push(tier);
    else if (text.startsWith('"inlineData') || text.startsWith('"fileData')) marks.mediaParts++;
    else if (text.startsWith('"cache_control')) cacheControl = true;
    else if (text.startsWith('"ttl')) hourLong = true;
    else marks.audioInput = true; // "audio":{ or "mimeType":"audio/
  }
  if (cacheControl) marks.cacheWrite = hourLong ? "1h" : "5m";
  return marks;
}

const positiveInteger = (value: unknown): value is number => typeof value === "number" && Number.isInteger(value) && value > 0;

/** The output limit of one choice: the caller's max tokens, else the model's maximum output, else its context. */
export function outputLimitPerChoice(body: Record<string, unknown>, modelMaxOutput: number, modelContext: number): number {
  const requested = [body.max_completion_tokens, body.max_tokens].filter(positiveInteger);
  return requested.length > 0 ? Math.max(...requested) : modelMaxOutput > 0 ? modelMaxOutput : modelContext;
}

/** The number of choices asked for (`n`). */
export const choicesAsked = (body: Record<string, unknown>): number => (positiveInteger(body.n) && body.n > 1 ? body.n : 1);

/**
 * Images an answer may carry when it can produce images (the caller asked with `modalities`, or
 * the model produces them unasked), for paths priced per image. Models generate one image per
 * answer as a rule; the bound allows a few, and an answer beyond it is billed up to the hold
 * (docs/money.md, "The worst case").
 */
export const IMAGES_PER_ANSWER_BOUND = 4;

/** Whether an answer may carry this kind of output: asked for in `modalities`, or produced by the model unasked. */
export function mayProduce(kind: "image" | "audio", body: Record<string, unknown>, modelOutputModalities: readonly string[]): boolean {
  return (Array.isArray(body.modalities) && body.modalities.includes(kind)) || modelOutputModalities.includes(kind);
}

/** Images in an OpenAI-shaped message or delta (`images: [{type:"image_url", ...}]`, OpenRouter's shape). */
export function countImages(messageOrDelta: unknown): number {
  const images = (messageOrDelta as { images?: unknown } | null)?.images;
  return Array.isArray(images) ? images.length : 0;
}

/** Rough token count of produced text, used only when an upstream reports no usage. */
export const estimateTokens = (text: string): number => estimateTokensOfBytes(Buffer.byteLength(text));
/** The same estimate from a byte count, for text counted as it passed and not kept. */
export const estimateTokensOfBytes = (bytes: number): number => Math.ceil(bytes / 4);
