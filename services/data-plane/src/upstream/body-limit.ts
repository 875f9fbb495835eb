// The cap on what is buffered from an upstream (docs/resilience.md, "Size
// limits"): a whole answer is read to its end before it is translated, so an
// unbounded one would take the process's heap (one 200 MiB answer ended a
// production data plane and every request in flight on it). Reading stops at
// the cap, before the bytes are held, and the connection is dropped.
import type { UpstreamResponse } from "./upstream-http";

/** An upstream answer, or one event of a stream, larger than the gateway buffers. */
export class UpstreamBodyTooLarge extends Error {
  constructor(readonly limitBytes: number) {
    super(`the upstream body is larger than ${limitBytes} bytes`);
  }
}

const BOM = 0xfeff;
/** What is read of answers the gateway only looks into (an error body's structured fields, a token count). */
export const SMALL_BODY_BYTES = 64 * 1024;

/** The body as UTF-8 text (as undici's text(): a byte-order mark dropped), read as readBytesWithin reads it. */
export async function readTextWithin(response: UpstreamResponse, limitBytes: number): Promise<string> {
  return utf8Text(await readBytesWithin(response, limitBytes));
}

/** Bytes as UTF-8 text as undici's text() gives it: a byte-order mark dropped, invalid bytes U+FFFD. */
export function utf8Text(bytes: Buffer): string {
  const text = bytes.toString("utf8");
  return text.charCodeAt(0) === BOM ? text.slice(1) : text;
}

/**
 * The body's bytes, read only while they stay within `limitBytes`: a larger Content-Length is refused
 * before reading, a longer body once it passes the cap. Either way the body is destroyed and
 * UpstreamBodyTooLarge thrown.
 */
export async function readBytesWithin(response: UpstreamResponse, limitBytes: number): Promise<Buffer> {
  const { body } = response;
  if (Number(response.headers["content-length"] ?? 0) > limitBytes) {
    body.destroy();
    throw new UpstreamBodyTooLarge(limitBytes);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for (;;) {
    let chunk = body.read();
    if (chunk instanceof Promise) chunk = await chunk;
    if (chunk === null) break;
    size += chunk.length;
    if (size > limitBytes) {
      body.destroy();
      throw new UpstreamBodyTooLarge(limitBytes);
    }
    chunks.push(chunk);
  }
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size);
}
