// Who may call the Azure persona (paths under /azure): an `api-key` header
// with the resource's key (`azure-mock-key`, or MockProviderOptions.apiKey when
// set), on the v1 form also that key as a bearer, or a bearer token issued by
// the mock's Entra ID stand-in. The identity endpoint checks its own header.
// A call to a deployment the resource does not have consumes no script.
import type { FastifyRequest } from "fastify";
import type { MockState } from "../state";
import type { Persona } from "../types";
import type { Wire } from "../wire";
import { AZURE_OPENAI, deploymentOf, isKnownDeployment } from "./azure-deployments";
import { AZURE_IDENTITY_HEADER, AZURE_IDENTITY_PATH, azureIdentity } from "./azure-identity";
import { azureErrorBody, createAzureWire } from "./azure-wire";

/** The resource's key when MockProviderOptions.apiKey does not name one. */
export const AZURE_MOCK_KEY = "azure-mock-key";

const BAD_TOKEN =
  "Unauthorized. Access token is missing, invalid, audience is incorrect (https://cognitiveservices.azure.com), or have expired.";

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

const isIdentityCall = (request: FastifyRequest) => request.url.split("?")[0] === AZURE_IDENTITY_PATH;

/** The persona's gate (personas.ts's Gate shape). */
export function createAzureGate(state: MockState) {
  const wire: Wire = createAzureWire(state.fixtures.errors);
  const key = state.apiKey ?? AZURE_MOCK_KEY;
  const identity = azureIdentity(state);
  const invalidKey = () => state.fixtures.errors["azure.error.401.invalid_key"] ?? wire.errorBody(401, "");

  return {
    persona: "azure" as Persona,
    wire,
    /** The token endpoint and unknown deployments take no script (routes answer them). */
    serves: (request: FastifyRequest) =>
      !isIdentityCall(request) && (deploymentOf(request) === undefined || isKnownDeployment(deploymentOf(request))),
    reject(request: FastifyRequest): { status: number; body: unknown } | undefined {
      if (isIdentityCall(request)) {
        if (header(request, "x-identity-header") === AZURE_IDENTITY_HEADER) return undefined;
        return { status: 401, body: { error: "invalid_request", error_description: "X-IDENTITY-HEADER is missing or wrong (mock)." } };
      }
      if (!request.url.startsWith(`${AZURE_OPENAI}/`)) return undefined; // a 404 of the persona
      const apiKey = header(request, "api-key");
      if (apiKey !== undefined) return apiKey === key ? undefined : { status: 401, body: invalidKey() };
      const bearer = /^Bearer\s+(\S+)$/i.exec(header(request, "authorization") ?? "")?.[1];
      if (bearer === undefined) return { status: 401, body: invalidKey() };
      if (identity.valid(bearer) || (bearer === key && request.url.startsWith(`${AZURE_OPENAI}/v1/`))) return undefined;
      return { status: 401, body: azureErrorBody("401", BAD_TOKEN) };
    },
  };
}
