// The recorded Gemini image stream at its recorded size. The fixture keeps only the first 4,096 base64
// characters of the 1.3 MB PNG; this repeats them back to the recorded length, so the image event is
// again one event far larger than any chunk a socket delivers (the bytes are no longer a valid PNG:
// nothing here decodes them).
import { fixtures } from "./fixture";

export const GEMINI_IMAGE_STREAM = "gemini.streamGenerateContent.image.sse";
/** Length of the recorded image's base64 data (a multiple of 4, as the kept prefix is). */
export const RECORDED_IMAGE_BASE64_LENGTH = 1_320_056;

export function geminiImageStream(): string {
  const trimmed = fixtures("gemini").text(GEMINI_IMAGE_STREAM);
  const image = /("inlineData":\{"data":")([A-Za-z0-9+/]+)(")/;
  const kept = image.exec(trimmed)?.[2];
  if (!kept) throw new Error(`${GEMINI_IMAGE_STREAM} has no inlineData image to expand`);
  const full = kept.repeat(Math.ceil(RECORDED_IMAGE_BASE64_LENGTH / kept.length)).slice(0, RECORDED_IMAGE_BASE64_LENGTH);
  return trimmed.replace(image, (_match, open: string, _data: string, close: string) => `${open}${full}${close}`);
}
