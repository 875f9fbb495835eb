// The clouds' providers from the environment (docs/providers.md): a well-known name per cloud, another
// region or resource as another name with <NAME>_PROTOCOL, and each cloud's endpoint derived unless set.
import { describe, expect, it } from "vitest";
import { ConfigError, parseDataPlaneConfig } from "../../src/config";

const base = { GATEWAY_INTERNAL_TOKEN: "internal-secret", GATEWAY_ALLOW_WEAK_TOKENS: "true" };
const providers = (env: Record<string, string | undefined>) => parseDataPlaneConfig({ ...base, ...env }).providers;

describe("cloud providers", () => {
  it("registers none unless asked: no Bedrock, Vertex or Azure by default", () => {
    expect([...providers({ AWS_REGION: "eu-west-1", AWS_BEARER_TOKEN_BEDROCK: "k" }).keys()]).toEqual(["openai"]);
  });

  it("Bedrock: the region places the endpoint; AWS_REGION when BEDROCK_REGION is empty; an API key from AWS's own variable", () => {
    expect(providers({ BEDROCK_REGION: "us-west-2" }).get("bedrock")).toMatchObject({
      name: "bedrock",
      protocol: "bedrock",
      baseUrl: "https://bedrock-runtime.us-west-2.amazonaws.com",
      cloud: { region: "us-west-2" },
    });
    expect(
      providers({ BEDROCK_REGION: " ", BEDROCK_BASE_URL: "http://127.0.0.1:9/bedrock/", AWS_REGION: "eu-central-1" }).get("bedrock"),
    ).toMatchObject({
      baseUrl: "http://127.0.0.1:9/bedrock",
      cloud: { region: "eu-central-1" },
    });
    expect(providers({ BEDROCK_REGION: "us-east-1", AWS_BEARER_TOKEN_BEDROCK: "ABSK-key" }).get("bedrock")!.cloud).toEqual({
      region: "us-east-1",
      apiKey: "ABSK-key",
    });
  });

  it("a second Bedrock region is a second provider name, with its own region and key", () => {
    const configured = providers({
      BEDROCK_REGION: "us-east-1",
      BEDROCK_EU_PROTOCOL: "bedrock",
      BEDROCK_EU_REGION: "eu-central-1",
      BEDROCK_EU_BEARER_TOKEN: "eu-key",
      AWS_BEARER_TOKEN_BEDROCK: "us-key",
    });
    expect(configured.get("bedrock-eu")).toMatchObject({
      protocol: "bedrock",
      baseUrl: "https://bedrock-runtime.eu-central-1.amazonaws.com",
      cloud: { region: "eu-central-1", apiKey: "eu-key" },
    });
    expect(configured.get("bedrock")!.cloud!.apiKey).toBe("us-key");
  });

  it("Vertex: needs its project; the global location by default, a regional host otherwise; a key file per provider", () => {
    expect(providers({ VERTEX_PROJECT: "acme" }).get("vertex")).toMatchObject({
      protocol: "vertex",
      baseUrl: "https://aiplatform.googleapis.com/v1",
      cloud: { region: "global", project: "acme" },
    });
    expect(
      providers({ VERTEX_PROJECT: "acme", VERTEX_LOCATION: "us-east5", VERTEX_CREDENTIALS_FILE: "/keys/sa.json" }).get("vertex"),
    ).toMatchObject({
      baseUrl: "https://us-east5-aiplatform.googleapis.com/v1",
      cloud: { region: "us-east5", project: "acme", credentialsFile: "/keys/sa.json" },
    });
    expect(() => providers({ VERTEX_EU_PROTOCOL: "vertex", VERTEX_EU_LOCATION: "europe-west1" })).toThrow(
      new ConfigError("VERTEX_EU_PROJECT is not set (the Google Cloud project of a Vertex AI provider)"),
    );
  });

  it("Azure: the resource places the endpoint; the deployments form and a GA api-version by default; v1 on request", () => {
    expect(providers({ AZURE_RESOURCE: "contoso" }).get("azure")).toMatchObject({
      protocol: "azure",
      baseUrl: "https://contoso.openai.azure.com/openai",
      cloud: { apiForm: "deployments", apiVersion: "2024-10-21" },
    });
    expect(
      providers({ AZURE_BASE_URL: "http://127.0.0.1:9/azure/openai", AZURE_API_FORM: "v1", AZURE_API_KEY: "k" }).get("azure"),
    ).toMatchObject({
      baseUrl: "http://127.0.0.1:9/azure/openai",
      cloud: { apiForm: "v1", apiKey: "k" },
    });
    expect(() => providers({ AZURE_RESOURCE: "contoso", AZURE_API_FORM: "v2" })).toThrow(
      new ConfigError('AZURE_API_FORM must be deployments or v1, got "v2"'),
    );
    expect(() => providers({ AZURE_WEST_PROTOCOL: "azure" })).toThrow(
      new ConfigError("AZURE_WEST_RESOURCE or AZURE_WEST_BASE_URL is not set (the Azure OpenAI resource)"),
    );
  });

  it("a <NAME>_PROTOCOL that names no cloud registers nothing (OpenTelemetry's OTEL_EXPORTER_OTLP_PROTOCOL)", () => {
    expect([...providers({ OTEL_EXPORTER_OTLP_PROTOCOL: "http/protobuf" }).keys()]).toEqual(["openai"]);
  });
});
