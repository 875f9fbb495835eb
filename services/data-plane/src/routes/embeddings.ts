// POST /v1/embeddings.
import type { FastifyInstance } from "fastify";
import type { Gateway } from "../gateway";
import { completeJson } from "../proxy/complete-json";
import { prepareCall } from "../proxy/prepare-call";
import { clientLink } from "./client-link";

export function registerEmbeddingsRoute(app: FastifyInstance, gateway: Gateway): void {
  app.post("/v1/embeddings", async (request, reply) => {
    const call = prepareCall(gateway, request.id, request.identity!, request.body, "embeddings");
    request.call = call;
    call.receivedAt = request.readAt;
    const body = await completeJson(gateway, call, clientLink(reply, gateway.config.clientDisconnectDrainMs));
    return reply.send(body);
  });
}
