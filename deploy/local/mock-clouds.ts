// The clouds' settings for a data plane whose upstream is the mock provider (`pnpm start`, the test
// stacks): Bedrock signed with the mock's AWS keys, Vertex AI with the mock's service account (its key
// file written under `dir`), Azure OpenAI with the mock's api-key. Each cloud's own credential code runs
// as in production; only where it sends (base URLs, the key file's token_uri) is the mock.
import { writeFileSync } from "node:fs";
import path from "node:path";
import { AZURE_MOCK_KEY } from "../../services/mock-provider/src/azure/azure-gate";
import { DEFAULT_ACCESS_KEY_ID, DEFAULT_SECRET_ACCESS_KEY } from "../../services/mock-provider/src/bedrock/bedrock-credentials";

/** The AWS secret the mock's Bedrock persona verifies Signature V4 with (for the test stacks' log check). */
export const MOCK_AWS_SECRET_ACCESS_KEY = DEFAULT_SECRET_ACCESS_KEY;

/**
 * `<NAME>_*` variables for the `bedrock`, `vertex` and `azure` providers.
 * @param mockApiKey the mock's MOCK_PROVIDER_API_KEY, when it was started with one (Azure's key is then that).
 */
export async function mockCloudEnv(mockUrl: string, dir: string, mockApiKey?: string): Promise<Record<string, string>> {
  const response = await fetch(`${mockUrl}/_mock/vertex/service-account`);
  if (!response.ok) throw new Error(`the mock provider gave no Vertex service account (${response.status})`);
  const keyFile = path.join(dir, "vertex-service-account.json");
  writeFileSync(keyFile, JSON.stringify(await response.json()), { mode: 0o600 });
  return {
    BEDROCK_BASE_URL: `${mockUrl}/bedrock`,
    BEDROCK_REGION: "us-east-1",
    AWS_ACCESS_KEY_ID: DEFAULT_ACCESS_KEY_ID,
    AWS_SECRET_ACCESS_KEY: DEFAULT_SECRET_ACCESS_KEY,
    // Nothing else of the machine's AWS setup applies: no profile file, no instance metadata probe.
    AWS_SESSION_TOKEN: "",
    AWS_PROFILE: "",
    AWS_EC2_METADATA_DISABLED: "true",
    VERTEX_BASE_URL: `${mockUrl}/vertex/v1`,
    VERTEX_PROJECT: "mock-project",
    VERTEX_LOCATION: "us-east5",
    VERTEX_CREDENTIALS_FILE: keyFile,
    AZURE_BASE_URL: `${mockUrl}/azure/openai`,
    AZURE_API_KEY: mockApiKey ?? AZURE_MOCK_KEY,
  };
}
