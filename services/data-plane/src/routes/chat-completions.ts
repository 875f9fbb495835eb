// POST /v1/chat/completions.
import type { FastifyInstance } from "fastify";
import type { Gateway } from "../gateway";
import { completeJson } from "../proxy/complete-json";
import { prepareCall, serviceHeaders } from "../proxy/prepare-call";
import { streamChat } from "../proxy/stream-chat";
import { reasonHeader } from "../routing/route-trace";
import { clientLink } from "./client-link";

export function registerChatRoute(app: FastifyInstance, gateway: Gateway): void {
  app.post("/v1/chat/completions", async (request, reply) => {
    const call = prepareCall(
      gateway,
      request.id,
      request.identity!,
      request.body,
      "chat",
      Number(request.headers["content-length"]) || undefined,
    );
    request.call = call;
    call.receivedAt = request.readAt;
    const client = clientLink(reply, gateway.config.clientDisconnectDrainMs);
    if (call.body.stream === true) {
      await streamChat(gateway, call, reply, client, () => reasonHeader(call.trace));
      return reply;
    }
    const body = await completeJson(gateway, call, client);
    return reply.headers(serviceHeaders(call, reasonHeader(call.trace))).send(body);
  });
}
