// OpenAI-compatible providers for unit tests of routing and the attempt loop, each at
// <base>/<name>/v1 (a mock server) or http://<name>.invalid/v1 (never called).
import { UpstreamProvider } from "../../src/providers/upstream-provider";
import type { UpstreamHttp } from "../../src/upstream/upstream-http";

export function openAiCompatibleProviders(
  http: UpstreamHttp,
  { base, names = ["openai", "openrouter"] }: { base?: string; names?: string[] } = {},
): Map<string, UpstreamProvider> {
  return new Map(
    names.map((name) => [
      name,
      new UpstreamProvider(
        {
          name,
          baseUrl: base ? `${base}/${name}/v1` : `http://${name}.invalid/v1`,
          protocol: "openai-compatible",
          extraFields: [],
          responsesApi: false,
        },
        http,
      ),
    ]),
  );
}
