// The one place a failure becomes an answer: a GatewayError as its route's
// dialect writes errors (the OpenAI shape elsewhere), fastify's own errors
// mapped to the table, anything else a logged 500. Every error answer says
// whether sending it again may help (x-should-retry, which OpenAI's SDKs read).
import { discardBody, type GatewayError } from "@gateway/proto";
import { bodyTooLarge, bodyUnreadable, GatewayError as Failure, internalError, routeNotFound } from "../../errors";
import type { ClientReply } from "../../engine/client-reply";
import type { HookRequest } from "../../request-context";
import { globalPlugin } from "./global-plugin";

/** Answers `error`: fastify's error handler, and the front door's (app/front-door.ts). */
export async function answerError(error: unknown, request: HookRequest, reply: ClientReply, bodyLimitBytes: number): Promise<ClientReply> {
  const failure = toGatewayError(error, bodyLimitBytes);
  request.errorCode = failure.kind;
  if (failure.kind === "internal_error") request.log.error({ err: error }, "unexpected error");
  if (failure.kind === "client_closed") return reply.code(499).send(); // the client is gone; nothing to answer
  // A 413 sent while the client is still sending reaches it as a broken connection.
  if (failure.kind === "body_too_large") await discardBody(request.raw, bodyLimitBytes);
  const body = request.routeOptions.config?.dialect?.errorBody(failure) ?? failure.toBody();
  return reply.code(failure.status).headers(failure.replyHeaders).send(body);
}

export const errorHandler = globalPlugin<{ bodyLimitBytes: number }>(async (app, options) => {
  app.setErrorHandler((error, request, reply) => answerError(error, request, reply, options.bodyLimitBytes));

  app.setNotFoundHandler((request, reply) => {
    const failure = routeNotFound(request.method, request.url.split("?")[0]!);
    return reply.code(failure.status).headers(failure.replyHeaders).send(failure.toBody());
  });
});

function toGatewayError(error: unknown, bodyLimitBytes: number): GatewayError {
  if (error instanceof Failure) return error;
  const code = (error as { code?: string }).code;
  const status = (error as { statusCode?: number }).statusCode;
  if (code === "FST_ERR_CTP_BODY_TOO_LARGE" || status === 413) return bodyTooLarge(bodyLimitBytes);
  if (status !== undefined && status >= 400 && status < 500) return bodyUnreadable();
  return internalError();
}
