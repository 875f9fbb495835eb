// The mock resource's deployments (name -> the model version Azure reports in
// answers) and which deployment a request names: in the path on the
// deployments form, as `model` on the v1 form.
import type { FastifyRequest } from "fastify";
import { isRecord } from "../json";

export const AZURE_DEPLOYMENTS: Readonly<Record<string, string>> = {
  "gpt-4.1": "gpt-4.1-2025-04-14",
  "gpt-4.1-nano": "gpt-4.1-nano-2025-04-14",
  "gpt-4o": "gpt-4o-2024-08-06",
  "gpt-4o-mini": "gpt-4o-mini-2024-07-18",
  "text-embedding-3-small": "text-embedding-3-small",
};

/** The Azure OpenAI paths under the persona's prefix. */
export const AZURE_OPENAI = "/azure/openai";

function pathOnly(url: string): string {
  const queryAt = url.indexOf("?");
  return queryAt === -1 ? url : url.slice(0, queryAt);
}

/** The deployment a call names (undefined when it names none: not a model call). */
export function deploymentOf(request: FastifyRequest): string | undefined {
  const path = pathOnly(request.url);
  const inPath = /^\/azure\/openai\/deployments\/([^/]+)\//.exec(path);
  if (inPath) return decodeURIComponent(inPath[1]!);
  if (path.startsWith(`${AZURE_OPENAI}/v1/`) && isRecord(request.body) && typeof request.body.model === "string") return request.body.model;
  return undefined;
}

export const isKnownDeployment = (name: string | undefined): name is string => name !== undefined && Object.hasOwn(AZURE_DEPLOYMENTS, name);
