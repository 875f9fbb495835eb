// Where the data plane's JSON log lines go: stdout, in batches, written by
// this thread. pino's default writes each line as it comes through libuv's
// thread pool: a hand-off to a pool thread and back per request, which on a
// data plane pinned to one core cost about 5% of its CPU at concurrency 64
// (0.3% this way, in a CPU profile). Lines are written once 4 KB have
// gathered, at least every LOG_FLUSH_MS, and on exit. A
// process killed outright (SIGKILL, the OOM killer) loses at most that much of
// its last lines; money never depends on logs. A log reader that stops reading
// (a full pipe) blocks the data plane instead of letting lines pile up in memory.
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
