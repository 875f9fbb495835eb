// The upstream providers from the environment (docs/providers.md): the well-known ones, any
// <NAME>_BASE_URL, and the clouds with their region, project or resource (config.ts reads the rest).
import { providerEnvPrefix } from "@gateway/proto/provider-env";
import path from "node:path";
import { DEFAULT_API_VERSION } from "./providers/azure/azure-paths";
import type { CloudSettings, ProviderConfig, ProviderProtocol } from "./providers/provider-config";
import { ConfigError, flag } from "./config-readers";

/**
 * Providers the gateway knows without configuration: their protocol, base URL
 * and extra fields. OpenAI is always registered (its key may come later); the
 * others once their base URL or API key is set.
 */
const WELL_KNOWN: Record<
  string,
  {
    protocol: ProviderProtocol;
    /** Empty for a cloud: derived from its region, project or resource (cloudSettings). */
    baseUrl: string;
    extraFields?: string[];
    always?: boolean;
    responsesApi?: boolean;
    /** The variable whose presence registers it (default <NAME>_API_KEY). */
    registeredBy?: string;
  }
> = {
  // OpenAI serves the Responses API itself; every other OpenAI-compatible vendor gets Responses clients translated.
  openai: { protocol: "openai-compatible", baseUrl: "https://api.openai.com/v1", always: true, responsesApi: true },
  anthropic: { protocol: "anthropic", baseUrl: "https://api.anthropic.com/v1" },
  google: { protocol: "gemini", baseUrl: "https://generativelanguage.googleapis.com/v1beta" },
  // OpenRouter's own request fields are forwarded to OpenRouter only; other upstreams get OpenAI's.
  openrouter: {
    protocol: "openai-compatible",
    baseUrl: "https://openrouter.ai/api/v1",
    // Not `models`, `route` or `plugins`: they make OpenRouter answer with (and charge for) another
    // model or paid plugins, while the caller is charged the catalogue price of the model routed to.
    extraFields: ["top_k", "min_p", "top_a", "repetition_penalty", "reasoning", "provider", "transforms", "usage"],
  },
  // The clouds (docs/providers.md): another region, project or resource is another provider name
  // with <NAME>_PROTOCOL set (BEDROCK_EU_PROTOCOL=bedrock, BEDROCK_EU_REGION=eu-central-1).
  bedrock: { protocol: "bedrock", baseUrl: "", registeredBy: "BEDROCK_REGION" },
  vertex: { protocol: "vertex", baseUrl: "", registeredBy: "VERTEX_PROJECT" },
  azure: { protocol: "azure", baseUrl: "", registeredBy: "AZURE_RESOURCE" },
};

/** What registers a well-known provider: its own variable, else any form of its key (one key or a pool). */
const keyVariables = (registeredBy: string | undefined, name: string): string[] => {
  if (registeredBy) return [registeredBy];
  const key = `${providerEnvPrefix(name)}_API_KEY`;
  return [key, `${key}S`, `${key}S_FILE`];
};

const PROTOCOLS: readonly ProviderProtocol[] = ["openai-compatible", "anthropic", "gemini", "bedrock", "vertex", "azure"];
const CLOUDS: ReadonlySet<ProviderProtocol> = new Set(["bedrock", "vertex", "azure"]);

/**
 * Providers come from <NAME>_BASE_URL variables (OPENAI_BASE_URL -> "openai", MY_VENDOR_BASE_URL ->
 * "my-vendor") and <NAME>_PROTOCOL naming a cloud (BEDROCK_EU_PROTOCOL=bedrock), plus the well-known ones; <NAME>_PROTOCOL, <NAME>_EXTRA_FIELDS and
 * <NAME>_RESPONSES_API adjust each, and a cloud's own variables place it (cloudSettings).
 */
export function parseProviders(env: NodeJS.ProcessEnv): Map<string, ProviderConfig> {
  const names = new Set(
    Object.entries(WELL_KNOWN)
      .filter(([name, known]) => known.always || keyVariables(known.registeredBy, name).some((variable) => env[variable]))
      .map(([name]) => name),
  );
  for (const [variable, value] of Object.entries(env)) {
    const match = /^([A-Z0-9_]+)_(BASE_URL|PROTOCOL)$/.exec(variable);
    // <NAME>_PROTOCOL alone names a cloud only (OTEL_EXPORTER_OTLP_PROTOCOL is no provider).
    if (match && value && (match[2] === "BASE_URL" || CLOUDS.has(value as ProviderProtocol)))
      names.add(match[1]!.toLowerCase().replaceAll("_", "-"));
  }
  const providers = new Map<string, ProviderConfig>();
  for (const name of names) {
    const prefix = providerEnvPrefix(name);
    const known = WELL_KNOWN[name];
    const configured = env[`${prefix}_BASE_URL`];
    if (configured) {
      try {
        new URL(configured);
      } catch {
        throw new ConfigError(`${prefix}_BASE_URL is not a URL: "${configured}"`);
      }
    }
    const protocol = (env[`${prefix}_PROTOCOL`] || known?.protocol || "openai-compatible") as ProviderProtocol;
    if (!PROTOCOLS.includes(protocol))
      throw new ConfigError(`${prefix}_PROTOCOL must be one of ${PROTOCOLS.join(", ")}, got "${protocol}"`);
    const extra = env[`${prefix}_EXTRA_FIELDS`];
    const cloud = CLOUDS.has(protocol) ? cloudSettings(protocol, prefix, env) : undefined;
    const baseUrl = configured || (cloud ? cloudBaseUrl(protocol, prefix, cloud, env) : known?.baseUrl);
    if (!baseUrl) throw new ConfigError(`${prefix}_BASE_URL is not set (provider "${name}", protocol ${protocol})`);
    providers.set(name, {
      name,
      baseUrl: baseUrl.replace(/\/+$/, ""),
      protocol,
      extraFields:
        extra === undefined
          ? (known?.extraFields ?? [])
          : extra
              .split(",")
              .map((field) => field.trim())
              .filter(Boolean),
      responsesApi: flag(env, `${prefix}_RESPONSES_API`, known?.responsesApi ?? false),
      ...(cloud ? { cloud } : {}),
    });
  }
  return providers;
}

/** A cloud's place and static credential (docs/providers.md has each variable). */
function cloudSettings(protocol: ProviderProtocol, prefix: string, env: NodeJS.ProcessEnv): CloudSettings {
  const value = (name: string) => env[`${prefix}_${name}`]?.trim() || undefined;
  switch (protocol) {
    case "bedrock": {
      // AWS's own variable for a Bedrock API key applies to every Bedrock provider, as in the AWS SDKs.
      const apiKey = value("BEARER_TOKEN") ?? (env.AWS_BEARER_TOKEN_BEDROCK?.trim() || undefined);
      return { region: value("REGION") ?? (env.AWS_REGION?.trim() || "us-east-1"), ...(apiKey ? { apiKey } : {}) };
    }
    case "vertex": {
      const project = value("PROJECT");
      if (!project) throw new ConfigError(`${prefix}_PROJECT is not set (the Google Cloud project of a Vertex AI provider)`);
      const credentialsFile = value("CREDENTIALS_FILE");
      return {
        region: value("LOCATION") ?? "global",
        project,
        ...(credentialsFile ? { credentialsFile: path.resolve(credentialsFile) } : {}),
      };
    }
    default: {
      const apiForm = value("API_FORM") ?? "deployments";
      if (apiForm !== "deployments" && apiForm !== "v1")
        throw new ConfigError(`${prefix}_API_FORM must be deployments or v1, got "${apiForm}"`);
      const apiKey = value("API_KEY");
      return { apiForm, apiVersion: value("API_VERSION") ?? DEFAULT_API_VERSION, ...(apiKey ? { apiKey } : {}) };
    }
  }
}

/** A cloud's endpoint when <NAME>_BASE_URL does not name one. */
function cloudBaseUrl(protocol: ProviderProtocol, prefix: string, cloud: CloudSettings, env: NodeJS.ProcessEnv): string {
  if (protocol === "bedrock") return `https://bedrock-runtime.${cloud.region}.amazonaws.com`;
  if (protocol === "vertex")
    return cloud.region === "global" ? "https://aiplatform.googleapis.com/v1" : `https://${cloud.region}-aiplatform.googleapis.com/v1`;
  const resource = env[`${prefix}_RESOURCE`]?.trim();
  if (!resource) throw new ConfigError(`${prefix}_RESOURCE or ${prefix}_BASE_URL is not set (the Azure OpenAI resource)`);
  return `https://${resource}.openai.azure.com/openai`;
}
