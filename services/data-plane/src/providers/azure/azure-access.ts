// An Azure OpenAI provider: one adapter for all its deployments, authenticated
// by the resource's api-key when configured, else by an Entra ID token from the
// environment's Azure credential chain.
import { DefaultAzureCredential, type TokenCredential } from "@azure/identity";
import type { CredentialLog } from "../cloud/upstream-auth";
import type { ProviderAccess } from "../provider-access";
import type { ProviderConfig } from "../provider-config";
import { AzureOpenAiAdapter } from "./azure-openai-adapter";
import { DEFAULT_API_VERSION } from "./azure-paths";
import { EntraTokenAuth } from "./entra-token-auth";

/** @param credential the token source without an api-key (tests); DefaultAzureCredential otherwise. */
export function azureAccess(config: ProviderConfig, log: CredentialLog, credential?: TokenCredential): ProviderAccess {
  const cloud = config.cloud;
  const adapter = new AzureOpenAiAdapter({
    apiForm: cloud?.apiForm ?? "deployments",
    apiVersion: cloud?.apiVersion ?? DEFAULT_API_VERSION,
    apiKey: cloud?.apiKey,
    extraFields: config.extraFields,
  });
  const adapterFor = () => adapter;
  if (cloud?.apiKey) return { adapterFor };
  return { adapterFor, auth: new EntraTokenAuth(config.name, credential ? () => credential : () => new DefaultAzureCredential(), log) };
}
