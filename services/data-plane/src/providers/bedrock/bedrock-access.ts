// AWS Bedrock as an access path (protocol `bedrock`), one folder, one concern per file:
//   bedrock-model-id.ts                    which operation family serves a model id; the id in the path
//   bedrock-auth.ts                        Bedrock API key (Bearer) or Signature V4 with the AWS default chain
//   invoke-anthropic-*.ts                  Claude through InvokeModel with the Anthropic Messages body (the Anthropic codec reused)
//   build-converse-request.ts, convert-to-converse-messages.ts   OpenAI chat -> Converse
//   convert-converse-response.ts, converse-usage.ts, map-converse-stop-reason.ts   Converse -> OpenAI chat
//   converse-stream-translator.ts          ConverseStream events -> chunks
//   bedrock-embeddings.ts                  Titan and Cohere embeddings through InvokeModel
//   classify-bedrock-error.ts, bedrock-stream-exception.ts   errors by name (header, `__type`, exception frames)
import { defaultProvider } from "@aws-sdk/credential-provider-node";
import type { CredentialLog, UpstreamAuth } from "../cloud/upstream-auth";
import type { ProviderAdapter } from "../provider-adapter";
import type { ProviderConfig } from "../provider-config";
import type { ProviderAccess } from "../provider-access";
import { type AwsCredentialSource, BedrockApiKeyAuth, SigV4Auth } from "./bedrock-auth";
import { isClaudeModel } from "./bedrock-model-id";
import { ConverseAdapter } from "./converse-adapter";
import { InvokeAnthropicAdapter } from "./invoke-anthropic-adapter";

/** The AWS default credential chain, walked anew per fetch (RefreshingCredential holds the result). */
const defaultChain: AwsCredentialSource = () => defaultProvider()();

export function bedrockAccess(config: ProviderConfig, log: CredentialLog, source: AwsCredentialSource = defaultChain): ProviderAccess {
  const region = config.cloud?.region ?? "us-east-1";
  const apiKey = config.cloud?.apiKey;
  const auth: UpstreamAuth = apiKey ? new BedrockApiKeyAuth(apiKey) : new SigV4Auth({ provider: config.name, region, source, log });
  const claude = new InvokeAnthropicAdapter();
  const converse = new Map<string, ProviderAdapter>();
  return {
    adapterFor: (upstreamModel) => {
      if (isClaudeModel(upstreamModel)) return claude;
      let adapter = converse.get(upstreamModel);
      if (!adapter) {
        adapter = new ConverseAdapter(upstreamModel);
        converse.set(upstreamModel, adapter);
      }
      return adapter;
    },
    auth,
  };
}
