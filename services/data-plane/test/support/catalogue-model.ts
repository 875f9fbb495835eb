// A curated balanced-tier chat model as the control plane sends it (test helper).
import type { Model__Output, Price__Output } from "@gateway/proto";

/** A verified input and output price (nano-USD per million tokens, as strings) as the control plane sends it, no other component. */
export const protoPrice = (inputNanoPerM: string, outputNanoPerM: string): Price__Output => ({
  inputNanoPerM,
  outputNanoPerM,
  verified: true,
  source: "test",
  longContext: null,
  serviceTiers: {},
  verifiedComponents: [],
});

export function catalogueModel(id: string, paths: Model__Output["paths"], overrides: Partial<Model__Output> = {}): Model__Output {
  return {
    id,
    curated: true,
    tiers: ["balanced"],
    purposes: [],
    ownedBy: id.split("/")[0]!,
    created: "0",
    contextLength: 128_000,
    maxOutputTokens: 16_000,
    inputModalities: ["text"],
    outputModalities: ["text"],
    tools: true,
    jsonSchema: true,
    embeddings: false,
    paths,
    ...overrides,
  };
}
