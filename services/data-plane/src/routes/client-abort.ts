// An AbortSignal that fires when the client goes away before the response is
// complete, so the upstream request is aborted with it.
import type { FastifyReply } from "fastify";

export function clientAbortSignal(reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  reply.raw.once("close", () => {
    if (!reply.raw.writableFinished) controller.abort();
  });
  return controller.signal;
}
