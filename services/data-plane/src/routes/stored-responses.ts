// The Responses API's routes for stored responses: the gateway stores none, so
// each answers 404 in OpenAI's shape, saying why (docs/dialects/openai-responses.md).
import type { FastifyInstance } from "fastify";
import { GatewayError } from "../errors";
import { echo } from "@gateway/proto";

const STORED_RESPONSE_ROUTES: [method: "GET" | "DELETE" | "POST", url: string][] = [
  ["GET", "/v1/responses/:id"],
  ["DELETE", "/v1/responses/:id"],
  ["GET", "/v1/responses/:id/input_items"],
  ["POST", "/v1/responses/:id/cancel"],
];

export function registerStoredResponseRoutes(app: FastifyInstance): void {
  for (const [method, url] of STORED_RESPONSE_ROUTES) {
    app.route({
      method,
      url,
      handler: async (request) => {
        const { id } = request.params as { id: string };
        throw new GatewayError(
          "not_found",
          `No response "${echo(id)}": the gateway stores no responses (nor does it let the upstream store them), so none can be retrieved, listed, deleted or cancelled. Send the full input with every request.`,
        );
      },
    });
  }
}
