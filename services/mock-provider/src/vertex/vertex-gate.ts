// The Vertex persona's check before any script: a model call must carry
// `Authorization: Bearer <token>` with a token the mock's token endpoint issued
// and that has not expired, else Google's 401 UNAUTHENTICATED (the recorded
// body when no credential came at all).
import type { FastifyRequest } from "fastify";
import { googleError } from "../gemini-errors";
import type { Gate } from "../gate";
import type { MockState } from "../state";
import { vertexAccountOf } from "./vertex-account";
import { vertexTarget } from "./vertex-target";
import { createVertexWire } from "./vertex-wire";

const INVALID_CREDENTIALS = googleError(
  401,
  "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.",
  "UNAUTHENTICATED",
);

function bearer(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  return /^Bearer\s+(\S+)$/i.exec(Array.isArray(header) ? (header[0] ?? "") : (header ?? ""))?.[1];
}

export function createVertexGate(state: MockState): Gate {
  const account = vertexAccountOf(state);
  const missing = state.fixtures.errors["vertex.error.401.unauthenticated"] ?? INVALID_CREDENTIALS;
  return {
    persona: "vertex",
    wire: createVertexWire(state.fixtures.errors),
    serves: (request) => vertexTarget(request.url) !== undefined,
    reject(request) {
      const token = bearer(request);
      if (token === undefined) return { status: 401, body: missing };
      return account.valid(token) ? undefined : { status: 401, body: INVALID_CREDENTIALS };
    },
  };
}
