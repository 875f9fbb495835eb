// The Gemini recordings the persona replays (see fixtures/README.md). Shapes
// recorded only one way are derived: the json_schema and system-instruction
// answers stream as one event (a complete response is a valid final chunk, as
// the single-event tools stream shows), and the image answer to a non-stream
// call is the recorded image stream assembled into one response.
import type { FixtureReader } from "./fixture-files";
import type { Json } from "./json";
import { deepFreeze } from "./fixture-files";
import { assembleStream } from "./assemble-gemini";
import { parseTranscript } from "./sse";

/** Which recorded answer serves a generateContent request. */
export type GeminiKind = "plain" | "tools" | "json_schema" | "system_instruction" | "image";

export interface GeminiFixtures {
  responses: Record<GeminiKind, Json>;
  streams: Record<GeminiKind, readonly Json[]>;
  /** The embedContent recording's vector (its published output was cut to 7 values). */
  embedding: readonly number[];
  /** The batchEmbedContents recording's vectors, one per recorded request entry (5 values each). */
  batchEmbeddings: readonly (readonly number[])[];
}

function values(response: Json): number[] {
  return ((response.embedding as Json).values as number[]).slice();
}

export function loadGeminiFixtures({ text, json }: FixtureReader): GeminiFixtures {
  const stream = (name: string) => parseTranscript(text(name));
  const imageStream = stream("gemini.streamGenerateContent.image.sse");
  const jsonSchema = json("gemini.generateContent.json_schema.response.json");
  const systemInstruction = json("gemini.generateContent.system_instruction.response.json");
  const batch = json("gemini.batchEmbedContents.response.json").embeddings as Json[];
  return deepFreeze({
    responses: {
      plain: json("gemini.generateContent.response.json"),
      tools: json("gemini.generateContent.tools.response.json"),
      json_schema: jsonSchema,
      system_instruction: systemInstruction,
      image: assembleStream(imageStream),
    },
    streams: {
      plain: stream("gemini.streamGenerateContent.sse"),
      tools: stream("gemini.streamGenerateContent.tools.sse"),
      json_schema: [jsonSchema],
      system_instruction: [systemInstruction],
      image: imageStream,
    },
    embedding: values(json("gemini.embedContent.response.json")),
    batchEmbeddings: batch.map((entry) => (entry.values as number[]).slice()),
  });
}
