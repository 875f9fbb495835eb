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
  const leave = () => {
    if (reply.raw.writableFinished || gone.signal.aborted) return;
    gone.abort();
    setTimeout(() => upstream.abort(), drainMs).unref();
  };
  // The client may have left before the handler ran (during the key check or the body read): its
  // 'close' has fired already and would never be heard.
  // (Not request.raw.destroyed: a request stream is destroyed once its body has been read.)
  if (reply.raw.destroyed || reply.raw.socket?.destroyed === true) leave();
  else reply.raw.once("close", leave);
  return { gone: gone.signal, upstream: upstream.signal };
}
