// Google Vertex AI as an access path (protocol `vertex`): one provider serves
// Google's Gemini models and Anthropic's Claude models under one project and
// location; the upstream model id picks the publisher (vertex-paths.ts), and
// every call carries an OAuth2 bearer token (vertex-auth.ts).
import type { CredentialLog } from "../cloud/upstream-auth";
import type { ProviderConfig } from "../provider-config";
import type { ProviderAccess } from "../provider-access";
import { VertexAuth } from "./vertex-auth";
import { VertexClaudeAdapter } from "./vertex-claude-adapter";
import { VertexGeminiAdapter } from "./vertex-gemini-adapter";
import { publisherOf, type VertexPlace } from "./vertex-paths";

export function vertexAccess(config: ProviderConfig, log: CredentialLog): ProviderAccess {
  const cloud = config.cloud;
  if (!cloud?.project) throw new Error(`${config.name}: a vertex provider needs its Google Cloud project`);
  const place: VertexPlace = { project: cloud.project, location: cloud.region ?? "global" };
  const gemini = new VertexGeminiAdapter(place);
  const claude = new VertexClaudeAdapter(place);
  return {
    adapterFor: (upstreamModel) => (publisherOf(upstreamModel) === "anthropic" ? claude : gemini),
    auth: new VertexAuth({ provider: config.name, credentialsFile: cloud.credentialsFile, log }),
  };
}
