// The Vertex AI recordings the persona replays (fixtures/README.md): Gemini's
// answer, function call and stream as Vertex sends them, and Claude's
// rawPredict answer and cache-writing stream. Read once per process, frozen.
import { parseAnthropicTranscript } from "../anthropic-sse";
import type { AnthropicEvent } from "../anthropic-sse";
import { deepFreeze, fixtureReader } from "../fixture-files";
import { FIXTURES_DIR } from "../fixtures";
import type { Json } from "../json";
import { parseTranscript } from "../sse";

export interface VertexFixtures {
  gemini: { plain: Json; tools: Json; stream: readonly Json[] };
  claude: { message: Json; stream: readonly AnthropicEvent[] };
}

let loaded: VertexFixtures | undefined;

export function vertexFixtures(): VertexFixtures {
  if (!loaded) {
    const { text, json } = fixtureReader(FIXTURES_DIR);
    loaded = deepFreeze({
      gemini: {
        plain: json("vertex.gemini.generateContent.response.json"),
        tools: json("vertex.gemini.generateContent.tools.response.json"),
        stream: parseTranscript(text("vertex.gemini.streamGenerateContent.sse")),
      },
      claude: {
        message: json("vertex.claude.rawPredict.response.json"),
        stream: parseAnthropicTranscript(text("vertex.claude.streamRawPredict.cache_write.sse")),
      },
    });
  }
  return loaded;
}
