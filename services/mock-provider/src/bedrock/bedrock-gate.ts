// Who may call the Bedrock persona (paths under /bedrock): a Bedrock API key as a
// bearer, or a Signature V4 by a known key pair (the long-term one, or temporary ones
// the credentials endpoint issued, with their session token). The signature check is
// async and the shared gate's `reject` is sync, so a preValidation hook (which runs
// before the exchange hook's preHandler) decides and stores the verdict; the gate reads
// it. The credentials endpoint checks its own Authorization token; it takes no script.
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { randomUUID } from "node:crypto";
import type { Gate } from "../gate";
import type { MockState } from "../state";
import { bedrockCredentials, CREDENTIALS_PATH, DEFAULT_API_KEY } from "./bedrock-credentials";
import { bedrockTarget } from "./bedrock-target";
import { type Refusal, verifySignature } from "./bedrock-signature";
import { CORAL_SERVICE, createBedrockWire, errorType } from "./bedrock-wire";

const verdicts = new WeakMap<FastifyRequest, Refusal | null>();

const under = (path: string) => path === "/bedrock" || path.startsWith("/bedrock/");

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

const MISSING_TOKEN: Refusal = {
  status: 403,
  body: { message: "Missing Authentication Token" },
  errorType: errorType("MissingAuthenticationTokenException", CORAL_SERVICE),
};

async function decide(state: MockState, request: FastifyRequest): Promise<Refusal | null> {
  const authorization = header(request, "authorization");
  if (request.url.split("?")[0] === CREDENTIALS_PATH) {
    const required = state.bedrock?.credentialsAuthorizationToken;
    if (required === undefined || authorization === required) return null;
    return {
      status: 401,
      body: { message: "Unauthorized (mock): Authorization must hold AWS_CONTAINER_AUTHORIZATION_TOKEN." },
      errorType: errorType("AccessDeniedException", CORAL_SERVICE),
    };
  }
  if (authorization === undefined || authorization === "") return MISSING_TOKEN;
  const bearer = /^Bearer\s+(\S+)$/i.exec(authorization)?.[1];
  if (bearer !== undefined) {
    const key = state.bedrock?.apiKey ?? state.apiKey ?? DEFAULT_API_KEY;
    if (bearer === key) return null;
    const body = state.fixtures.errors["bedrock.error.403.api_key_invalid"] ?? {
      Message: "Authentication failed: Please make sure your API Key is valid.",
    };
    return { status: 403, body, errorType: errorType("AccessDeniedException", CORAL_SERVICE) };
  }
  const refusal = await verifySignature(
    { method: request.method, url: request.url, headers: request.headers, body: state.rawBodies.get(request) ?? "" },
    bedrockCredentials(state),
  );
  return refusal ?? null;
}

/** Decides every /bedrock call before the exchange hook; every answer gets an x-amzn-RequestId. */
export function registerBedrockVerdicts(app: FastifyInstance, state: MockState): void {
  app.addHook("preValidation", async (request: FastifyRequest, reply: FastifyReply) => {
    if (!under(request.url.split("?")[0] ?? "")) return;
    // On the raw response, so hijacked (streamed) answers carry it too.
    reply.raw.setHeader("x-amzn-requestid", randomUUID());
    verdicts.set(request, await decide(state, request));
  });
}

/** The gate of one /bedrock request (personas.ts), its wire naming the refusal's exception. */
export function bedrockGate(state: MockState, request: FastifyRequest): Gate {
  const verdict = verdicts.get(request);
  const isCredentials = request.url.split("?")[0] === CREDENTIALS_PATH;
  const served = !isCredentials && bedrockTarget(request.url) !== undefined;
  const exception = verdict
    ? verdict.errorType
    : served || isCredentials
      ? undefined
      : errorType("UnknownOperationException", CORAL_SERVICE);
  return {
    persona: "bedrock",
    wire: createBedrockWire(state.fixtures.errors, exception),
    serves: () => served,
    // No verdict: the hook did not run (cannot happen for a routed request); refuse rather than let it through.
    reject: () => (verdict === null ? undefined : (verdict ?? MISSING_TOKEN)),
  };
}
