// Where the data plane's JSON log lines go: stdout, in batches written by this
// thread, not pino's default write per line through libuv's thread pool, whose
// hand-off per request cost measurably (docs/architecture.md, docs/benchmark.md).
// Lines are written once 4 KB have gathered, at least every LOG_FLUSH_MS, and
// on exit: a process killed outright loses at most that much. A log reader that
// stops reading (a full pipe) blocks the data plane instead of letting lines
// pile up in memory.
import pino from "pino";

/** Lines wait at most this long before they are written. */
export const LOG_FLUSH_MS = 200;
const LOG_BATCH_BYTES = 4096;

export function logDestination(): pino.DestinationStream {
  const destination = pino.destination({ dest: 1, sync: true, minLength: LOG_BATCH_BYTES, periodicFlush: LOG_FLUSH_MS });
  // pino flushes on exit only the destinations it writes asynchronously: this one is flushed here,
  // on every exit (process.exit after a drain, or an uncaught error).
  process.once("exit", () => {
    try {
      destination.flushSync();
    } catch {
      // stdout is gone: nothing to write to.
    }
  });
  return destination;
}
