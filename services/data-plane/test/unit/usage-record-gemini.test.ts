// Gemini `usageMetadata` read into the one usage record the meter bills from:
// cached content, thoughts, tool-use prompt tokens, and audio and image tokens
// by modality. Recordings in providers/gemini/__fixtures__.
import { describe, expect, it } from "vitest";
import { GeminiAdapter } from "../../src/providers/gemini/gemini-adapter";
import { openAiUsage, readGeminiUsage } from "../../src/providers/gemini/usage";
import { fixtures } from "../support/fixture";
import { billed, meterStream, meterWhole, RESPONSE_CONTEXT } from "../support/meter-replay";

const recorded = fixtures("gemini");
const adapter = new GeminiAdapter();
const whole = {
  response: (json: unknown) => adapter.response("chat", json, RESPONSE_CONTEXT),
  usage: (json: unknown) => adapter.usage("chat", json),
};

describe("Gemini usage", () => {
  it("a cached answer (gemini.generateContent.cached.response.json): promptTokenCount includes the cached content", () => {
    expect(billed(meterWhole(whole, recorded.text("gemini.generateContent.cached.response.json")))).toEqual({
      inputTokens: 323_388,
      cachedInputTokens: 323_383,
      outputTokens: 397,
      images: 0,
    });
  });

  it("a thinking stream (gemini.streamGenerateContent.thinking.sse): thoughts are output, and its reasoning share", () => {
    expect(billed(meterStream(adapter.stream(RESPONSE_CONTEXT), recorded.text("gemini.streamGenerateContent.thinking.sse")))).toEqual({
      inputTokens: 9,
      outputTokens: 23 + 302,
      reasoningTokens: 302,
      images: 0,
    });
  });

  it("audio and image tokens by modality: cached images left out of the prompt's, cached audio billed as audio (no cached-audio rate); tool-use prompt tokens are input", () => {
    const metadata = {
      promptTokenCount: 1000,
      toolUsePromptTokenCount: 20,
      candidatesTokenCount: 300,
      thoughtsTokenCount: 50,
      cachedContentTokenCount: 400,
      promptTokensDetails: [
        { modality: "TEXT", tokenCount: 500 },
        { modality: "AUDIO", tokenCount: 300 },
        { modality: "IMAGE", tokenCount: 200 },
      ],
      cacheTokensDetails: [
        { modality: "TEXT", tokenCount: 200 },
        { modality: "AUDIO", tokenCount: 200 },
      ],
      candidatesTokensDetails: [
        { modality: "AUDIO", tokenCount: 240 },
        { modality: "TEXT", tokenCount: 60 },
      ],
    };
    expect(readGeminiUsage(metadata)).toEqual({
      inputTokens: 1020,
      cachedInputTokens: 200,
      audioInputTokens: 300,
      imageInputTokens: 200,
      outputTokens: 350,
      reasoningTokens: 50,
      audioOutputTokens: 240,
    });
    // The translated answer's OpenAI usage: input image tokens have no field there.
    expect(openAiUsage(metadata)).toEqual({
      prompt_tokens: 1020,
      completion_tokens: 350,
      total_tokens: 1370,
      prompt_tokens_details: { cached_tokens: 200, audio_tokens: 300 },
      completion_tokens_details: { reasoning_tokens: 50, audio_tokens: 240 },
    });
  });

  it("embeddings report no usage (the proxy estimates)", () => {
    expect(adapter.usage("embeddings", recorded.json("gemini.batchEmbedContents.response.json"))).toBeUndefined();
  });
});
