// The model calls one replica holds at once, at most (DATA_PLANE_MAX_IN_FLIGHT): beyond them a call is
// refused at once with 503 `overloaded` and Retry-After, in its route's dialect, once its key is checked
// and before its limit is or its body is read. Every open call holds memory until its answer ends (an open
// stream 30-55 KB of RSS here), and a replica past its heap dies with every stream it carries, unbilled for
// what they had delivered: measured in docs/benchmark.md ("10,000 slow streams"). A call counts until its
// response closes.
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction, onRequestHookHandler } from "fastify";
import { overloaded } from "../../errors";
import { onResponseClose } from "../../response-close";
import { globalPlugin } from "./global-plugin";
import { onModelCallRoutes } from "./route-hooks";

export const inFlightLimit = globalPlugin<{ maxInFlight: number; refusals: { inc(): void } }>(async (app, { maxInFlight, refusals }) => {
  if (maxInFlight === 0) return; // no limit: no hook
  let inFlight = 0;
  const ended = () => {
    inFlight--;
  };
  const admit = (_request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => {
    if (inFlight >= maxInFlight) {
      refusals.inc();
      return done(overloaded(maxInFlight));
    }
    inFlight++;
    onResponseClose(reply.raw, ended);
    done();
  };
  onModelCallRoutes(app, { onRequest: admit as onRequestHookHandler });
});
