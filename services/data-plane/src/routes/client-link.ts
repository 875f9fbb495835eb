// The client side of one request. `gone` fires when the client goes away
// before its response is complete. `upstream` is the upstream request's abort
// signal: it fires a short drain after `gone`, so the provider's usage can
// still arrive and be billed (issue: bill what was produced, never $0 after
// content was sent), and the upstream is still stopped within a second.
import type { FastifyReply } from "fastify";

export interface ClientLink {
  gone: AbortSignal;
  upstream: AbortSignal;
}

export function clientLink(reply: FastifyReply, drainMs: number): ClientLink {
  const gone = new AbortController();
  const upstream = new AbortController();
  reply.raw.once("close", () => {
    if (reply.raw.writableFinished) return;
    gone.abort();
    setTimeout(() => upstream.abort(), drainMs).unref();
  });
  return { gone: gone.signal, upstream: upstream.signal };
}
