// The model calls one replica holds at once, at most (DATA_PLANE_MAX_IN_FLIGHT): beyond them a call is
// refused at once with 503 `overloaded` and Retry-After, in its route's dialect, once its key is checked
// and before its limit is or its body is read. Every open call holds memory until its answer ends (an open
// stream 30-55 KB of RSS here), and a replica past its heap dies with every stream it carries, unbilled for
// what they had delivered: measured in docs/benchmark.md ("10,000 slow streams"). A call counts until its
// response closes.
import { overloaded } from "../../errors";
import { onResponseClose } from "../../response-close";
import type { Hook } from "../../request-context";
import { globalPlugin } from "./global-plugin";
import { onModelCallRoutes } from "./route-hooks";

/** The one count of a replica's model calls (both doors share it); none without a limit. */
export function inFlightHook(maxInFlight: number, refusals: { inc(): void }): Hook | undefined {
  if (maxInFlight === 0) return undefined; // no limit: no hook
  let inFlight = 0;
  const ended = () => {
    inFlight--;
  };
  return (_request, reply, done) => {
    if (inFlight >= maxInFlight) {
      refusals.inc();
      return done(overloaded(maxInFlight));
    }
    inFlight++;
    onResponseClose(reply.raw, ended);
    done();
  };
}

export const inFlightLimit = globalPlugin<{ hook: Hook | undefined }>(async (app, { hook }) => {
  if (hook) onModelCallRoutes(app, { onRequest: hook });
});
