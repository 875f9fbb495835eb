// Before a 413 goes out, the rest of the oversized body is read and thrown away: answering while the
// client is still sending makes the server close a socket with unread data, and the client sees a
// broken connection (EPIPE, a reset) instead of the 413 (issue 19, item 10). Both planes use it.

/** How much of an oversized body is read at most, as a multiple of the limit; past it the connection is cut. */
export const DISCARD_FACTOR = 4;
/** But never less than this: a small limit (the admin API's 1 MiB) would otherwise cut an ordinary large upload. */
export const DISCARD_FLOOR_BYTES = 16 * 1024 * 1024;

interface BodyStream {
  readonly complete: boolean;
  readonly destroyed: boolean;
  on(event: "data", listener: (chunk: Buffer) => void): unknown;
  on(event: "end" | "close" | "error", listener: () => void): unknown;
  removeAllListeners(event: "data"): unknown;
  resume(): unknown;
}

/** Resolves once the request's body was read to its end, or `DISCARD_FACTOR` times `limit` bytes (at least the floor) were, or the stream broke. */
export function discardBody(body: BodyStream, limit: number): Promise<void> {
  if (body.complete || body.destroyed) return Promise.resolve();
  const bound = Math.max(DISCARD_FACTOR * limit, DISCARD_FLOOR_BYTES);
  return new Promise((resolve) => {
    let read = 0;
    const done = () => {
      body.removeAllListeners("data");
      resolve();
    };
    body.on("data", (chunk) => {
      read += chunk.length;
      if (read > bound) done();
    });
    body.on("end", done);
    body.on("close", done);
    body.on("error", done);
    body.resume();
  });
}
