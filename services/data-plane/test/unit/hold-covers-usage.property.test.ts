// The hold is a worst case: for random requests in every client dialect, sent
// through every kind of access path at random component prices, any usage the
// upstream may report within the request's own limits costs at most the hold;
// and an answer capped to a smaller hold costs at most that hold (docs/money.md,
// "The worst case"). The limits below are read from the body as forwarded and
// from each provider's documentation, independently of the hold's own code.
import type { Catalogue__Output } from "@gateway/proto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { costNano, type UsageRecord } from "../../src/billing/pricing";
import { buildSnapshot, type Price, type TokenRates } from "../../src/catalogue/catalogue-snapshot";
import { anthropicMessages } from "../../src/dialects/anthropic-messages/anthropic-messages-dialect";
import type { ClientDialect, ClientRequest } from "../../src/dialects/client-dialect";
import { openAiChat } from "../../src/dialects/openai/openai-chat-dialect";
import { openAiResponses } from "../../src/dialects/openai-responses/openai-responses-dialect";
import { type CallTarget, planTargets, type TargetContext } from "../../src/engine/call-plan";
import { chooseCall } from "../../src/engine/choose-target";
import type { ProviderConfig } from "../../src/providers/provider-config";
import { UpstreamProvider } from "../../src/providers/upstream-provider";
import { PathHealth } from "../../src/routing/path-health";
import type { UpstreamHttp } from "../../src/upstream/upstream-http";
import { catalogueModel } from "../support/catalogue-model";

type Json = Record<string, unknown>;

// ---- What each provider documents (the test's own statement of it) ----

/** Gemini thinks beyond maxOutputTokens, up to its maximum budget (ai.google.dev/gemini-api/docs/thinking). */
const GEMINI_THINKING: Record<string, number> = { "gemini-2.5-flash": 24_576, "gemini-2.5-pro": 32_768, "gemini-2.5-flash-lite": 24_576 };
const geminiThinking = (upstreamModel: string) => GEMINI_THINKING[upstreamModel.replace(/^google\//, "")] ?? 0;
/** The largest tool-use system prompt in Anthropic's table; computer use, the largest Anthropic-defined tool (735 + 499). */
const ANTHROPIC_TOOL_PROMPT = 530;
const ANTHROPIC_DEFINED_TOOL = 1_234;
/** Tokens one image may count: GPT-4o mini 2,833 + 8 tiles x 5,667; Claude Opus 4.7 ~4,784 patches; others less. */
const imageTokens = (upstreamModel: string) => (upstreamModel.includes("gpt-4o-mini") ? 48_169 : 5_000);

// ---- Paths ----

const OPENROUTER_FIELDS = ["top_k", "min_p", "top_a", "repetition_penalty", "reasoning", "provider", "transforms", "usage"];
/** The body a path sends, by this test's own reading of each provider's documentation (not the adapter's protocol field). */
type Body = "openai-compatible" | "anthropic" | "gemini" | "converse";
interface TestProvider {
  name: string;
  protocol: ProviderConfig["protocol"];
  extraFields: string[];
  responsesApi: boolean;
  models: string[];
  cloud?: ProviderConfig["cloud"];
  /** Absent: the protocol's own body. */
  body?: (upstreamModel: string) => Body;
}
const PROVIDERS: TestProvider[] = [
  { name: "openai", protocol: "openai-compatible", extraFields: [], responsesApi: true, models: ["gpt-4.1", "gpt-4o-mini", "o4-mini"] },
  {
    name: "openrouter",
    protocol: "openai-compatible",
    extraFields: OPENROUTER_FIELDS,
    responsesApi: false,
    models: ["google/gemini-2.5-flash", "google/gemini-2.5-pro", "anthropic/claude-sonnet-4", "openai/gpt-4.1"],
  },
  {
    name: "anthropic",
    protocol: "anthropic",
    extraFields: [],
    responsesApi: false,
    models: ["claude-sonnet-4-20250514", "claude-opus-4-7"],
  },
  {
    name: "google",
    protocol: "gemini",
    extraFields: [],
    responsesApi: false,
    models: ["gemini-2.5-flash", "gemini-2.5-pro", "gemini-2.5-flash-lite"],
  },
  // Vertex AI carries Anthropic's body for Claude and Gemini's for Gemini; Bedrock Anthropic's for Claude (InvokeModel),
  // Converse's for the others; Azure OpenAI's.
  {
    name: "vertex",
    protocol: "vertex",
    extraFields: [],
    responsesApi: false,
    models: ["claude-sonnet-4@20250514", "gemini-2.5-flash", "gemini-2.5-pro"],
    cloud: { region: "us-east5", project: "test" },
    body: (model) => (model.startsWith("claude-") ? "anthropic" : "gemini"),
  },
  {
    name: "bedrock",
    protocol: "bedrock",
    extraFields: [],
    responsesApi: false,
    models: ["us.anthropic.claude-sonnet-4-20250514-v1:0", "amazon.nova-lite-v1:0"],
    cloud: { region: "us-east-1", apiKey: "test" },
    body: (model) => (model.includes("anthropic.") ? "anthropic" : "converse"),
  },
  {
    name: "azure",
    protocol: "azure",
    extraFields: [],
    responsesApi: false,
    models: ["gpt-4.1", "o4-mini"],
    cloud: { apiForm: "deployments", apiVersion: "2024-10-21", apiKey: "test" },
    body: () => "openai-compatible",
  },
];

const noHttp = { post: () => Promise.reject(new Error("no upstream in this test")) } as unknown as Pick<UpstreamHttp, "post">;
const context: TargetContext = {
  providers: new Map(
    PROVIDERS.map(({ name, protocol, extraFields, responsesApi, cloud }) => [
      name,
      new UpstreamProvider(
        { name, baseUrl: `http://${name}.invalid`, protocol, extraFields, responsesApi, ...(cloud ? { cloud } : {}) },
        noHttp,
      ),
    ]),
  ),
  health: new PathHealth({ errorHalfLifeMs: 30_000, failureThreshold: 5, cooldownMs: 30_000 }),
  credentials: new Map(),
};

// ---- Prices ----

const perM = fc.bigInt({ min: 0n, max: 80_000_000_000n }); // up to $80 per million tokens
const optionalRate = fc.option(perM, { nil: undefined });
const RATE_NAMES = ["cachedInput", "cacheWrite5m", "cacheWrite1h", "reasoning", "audioInput", "audioOutput", "imageInput", "imageOutput"];
const otherRates = fc.tuple(...RATE_NAMES.map(() => optionalRate)).map((values) => {
  const rates: TokenRates = {};
  RATE_NAMES.forEach((name, index) => {
    if (values[index] !== undefined) rates[name as keyof TokenRates] = values[index];
  });
  return rates;
});
const allRates = fc.record({ input: optionalRate, output: optionalRate, other: otherRates }).map(({ input, output, other }) => {
  const rates: TokenRates = { ...other };
  if (input !== undefined) rates.input = input;
  if (output !== undefined) rates.output = output;
  return rates;
});
const unitPrice = fc.option(fc.bigInt({ min: 1n, max: 200_000_000n }), { nil: null });

const priceArb: fc.Arbitrary<Price> = fc
  .record({
    input: perM,
    output: perM,
    rates: otherRates,
    longContext: fc.option(fc.record({ aboveInputTokens: fc.nat(300_000), rates: allRates }), { nil: null }),
    tiers: fc.record({ priority: allRates, flex: allRates }, { requiredKeys: [] }),
    imageNano: unitPrice,
    inputImageNano: unitPrice,
    requestNano: unitPrice,
    webSearchNano: unitPrice,
  })
  .map((p) => ({
    inputNanoPerM: p.input,
    outputNanoPerM: p.output,
    imageNano: p.imageNano,
    requestNano: p.requestNano,
    verified: true,
    source: "property test",
    rates: p.rates,
    inputImageNano: p.inputImageNano,
    webSearchNano: p.webSearchNano,
    longContext: p.longContext,
    serviceTiers: new Map(Object.entries(p.tiers)),
  }));

// ---- Requests ----

interface Spec {
  dialect: "chat" | "responses" | "messages";
  text: string;
  images: number;
  documents: number;
  audio: boolean;
  maxTokens: number | undefined;
  maxField: "max_tokens" | "max_completion_tokens";
  n: number;
  tools: number;
  definedTool: boolean;
  cache: "none" | "5m" | "1h";
  thinking: number | undefined;
  effort: "low" | "high" | undefined;
  reasoningMaxTokens: number | undefined;
  tier: "priority" | "flex" | "auto" | "default" | undefined;
  modalities: "text" | "image" | "audio";
  prediction: boolean;
}

const specArb: fc.Arbitrary<Spec> = fc.record({
  dialect: fc.constantFrom("chat" as const, "responses" as const, "messages" as const),
  text: fc.string({ unit: "binary", maxLength: 300 }),
  images: fc.nat(3),
  documents: fc.nat(2),
  audio: fc.boolean(),
  maxTokens: fc.option(fc.integer({ min: 1, max: 100_000 }), { nil: undefined }),
  maxField: fc.constantFrom("max_tokens" as const, "max_completion_tokens" as const),
  n: fc.integer({ min: 1, max: 3 }),
  tools: fc.nat(2),
  definedTool: fc.boolean(),
  cache: fc.constantFrom("none" as const, "5m" as const, "1h" as const),
  thinking: fc.option(fc.integer({ min: 1_024, max: 60_000 }), { nil: undefined }),
  effort: fc.option(fc.constantFrom("low" as const, "high" as const), { nil: undefined }),
  reasoningMaxTokens: fc.option(fc.integer({ min: 1, max: 40_000 }), { nil: undefined }),
  tier: fc.option(fc.constantFrom("priority" as const, "flex" as const, "auto" as const, "default" as const), { nil: undefined }),
  modalities: fc.constantFrom("text" as const, "image" as const, "audio" as const),
  prediction: fc.boolean(),
});

const PNG = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";
const PDF = "JVBERi0xLjQKJcTl8uXrp/Og0MTGCg==";
const schema = { type: "object", properties: { q: { type: "string" } } };

function chatBody(spec: Spec, model: string): Json {
  const cache =
    spec.cache === "none" ? {} : { cache_control: spec.cache === "1h" ? { type: "ephemeral", ttl: "1h" } : { type: "ephemeral" } };
  const content: Json[] = [{ type: "text", text: spec.text || "hi", ...cache }];
  for (let i = 0; i < spec.images; i++) content.push({ type: "image_url", image_url: { url: PNG } });
  for (let i = 0; i < spec.documents; i++)
    content.push({ type: "file", file: { filename: "a.pdf", file_data: `data:application/pdf;base64,${PDF}` } });
  if (spec.audio) content.push({ type: "input_audio", input_audio: { data: "UklGRg==", format: "wav" } });
  const body: Json = { model, messages: [{ role: "user", content }] };
  if (spec.maxTokens !== undefined) body[spec.maxField] = spec.maxTokens;
  if (spec.n > 1) body.n = spec.n;
  if (spec.tools > 0)
    body.tools = Array.from({ length: spec.tools }, (_, i) => ({ type: "function", function: { name: `f${i}`, parameters: schema } }));
  if (spec.effort) body.reasoning_effort = spec.effort;
  if (spec.reasoningMaxTokens !== undefined) body.reasoning = { max_tokens: spec.reasoningMaxTokens };
  if (spec.tier) body.service_tier = spec.tier;
  if (spec.modalities !== "text") body.modalities = ["text", spec.modalities];
  if (spec.prediction) body.prediction = { type: "content", content: spec.text || "predicted" };
  return body;
}

function responsesBody(spec: Spec, model: string): Json {
  const content: Json[] = [{ type: "input_text", text: spec.text || "hi" }];
  for (let i = 0; i < spec.images; i++) content.push({ type: "input_image", image_url: PNG });
  for (let i = 0; i < spec.documents; i++)
    content.push({ type: "input_file", filename: "a.pdf", file_data: `data:application/pdf;base64,${PDF}` });
  const body: Json = { model, input: [{ role: "user", content }] };
  if (spec.maxTokens !== undefined) body.max_output_tokens = spec.maxTokens;
  if (spec.tools > 0) body.tools = Array.from({ length: spec.tools }, (_, i) => ({ type: "function", name: `f${i}`, parameters: schema }));
  if (spec.effort) body.reasoning = { effort: spec.effort };
  if (spec.tier) body.service_tier = spec.tier;
  return body;
}

function messagesBody(spec: Spec, model: string, anthropicPath: boolean): Json {
  const cache =
    spec.cache === "none" ? {} : { cache_control: spec.cache === "1h" ? { type: "ephemeral", ttl: "1h" } : { type: "ephemeral" } };
  const content: Json[] = [{ type: "text", text: spec.text || "hi" }];
  for (let i = 0; i < spec.images; i++)
    content.push({ type: "image", source: { type: "base64", media_type: "image/png", data: PNG.slice(22) } });
  for (let i = 0; i < spec.documents; i++)
    content.push({ type: "document", source: { type: "base64", media_type: "application/pdf", data: PDF } });
  // Anthropic requires max_tokens, and a thinking budget below it.
  const maxTokens = spec.maxTokens ?? 1_024;
  const body: Json = {
    model,
    max_tokens: spec.thinking !== undefined ? Math.max(maxTokens, spec.thinking + 1) : maxTokens,
    system: [{ type: "text", text: "be brief", ...cache }],
    messages: [{ role: "user", content }],
  };
  const tools: Json[] = Array.from({ length: spec.tools }, (_, i) => ({ name: `f${i}`, input_schema: schema }));
  // An Anthropic-defined tool makes the request native-only: Anthropic paths alone.
  if (spec.definedTool && anthropicPath) tools.push({ type: "bash_20250124", name: "bash" });
  if (tools.length > 0) body.tools = tools;
  if (spec.thinking !== undefined) body.thinking = { type: "enabled", budget_tokens: spec.thinking };
  if (spec.tier === "auto") body.service_tier = "auto";
  return body;
}

// ---- The limits of what the upstream may report for the body as forwarded ----

interface Limits {
  input: number;
  output: number;
  images: number;
  inputImages: number;
  cacheWrite5m: boolean;
  cacheWrite1h: boolean;
  audioInput: boolean;
  audioOutput: boolean;
  imageOutput: boolean;
  tiers: (string | undefined)[];
}

/** Every object in a JSON value. */
function objects(value: unknown, out: Json[] = []): Json[] {
  if (Array.isArray(value)) for (const item of value) objects(item, out);
  else if (typeof value === "object" && value !== null) {
    out.push(value as Json);
    for (const item of Object.values(value)) objects(item, out);
  }
  return out;
}

const MEDIA_TYPES = new Set(["image_url", "input_image", "image", "document", "file", "input_file"]);
const positive = (value: unknown): number | undefined =>
  typeof value === "number" && Number.isInteger(value) && value > 0 ? value : undefined;

function limitsOf(target: CallTarget, request: ClientRequest, forwarded: string, price: Price): Limits {
  const sent = JSON.parse(forwarded) as Json;
  const all = objects(sent);
  const upstreamModel = target.path.upstreamModel;
  const provider = PROVIDERS.find((candidate) => candidate.name === target.path.provider)!;
  const protocol: Body | ProviderConfig["protocol"] = provider.body?.(upstreamModel) ?? provider.protocol;
  const model = target.model;
  const media = all.filter((o) => MEDIA_TYPES.has(o.type as string) || "inlineData" in o || "fileData" in o).length;
  const claude = protocol === "anthropic" || upstreamModel.includes("claude");
  const tools = Array.isArray(sent.tools) ? (sent.tools as Json[]) : [];
  const toolTokens =
    claude && tools.length > 0
      ? ANTHROPIC_TOOL_PROMPT +
        tools.filter((tool) => typeof tool.type === "string" && tool.type !== "custom" && tool.type !== "function").length *
          ANTHROPIC_DEFINED_TOOL
      : 0;
  const modelMax = model.maxOutputTokens > 0 ? model.maxOutputTokens : model.contextLength;
  let perChoice: number;
  let choices = 1;
  let beyond = 0;
  let outputModalities: unknown[] = [];
  if (protocol === "gemini") {
    const config = (sent.generationConfig ?? {}) as Json;
    perChoice = positive(config.maxOutputTokens) ?? modelMax;
    choices = positive(config.candidateCount) ?? 1;
    beyond = geminiThinking(upstreamModel);
    outputModalities = ((config.responseModalities as string[] | undefined) ?? []).map((m) => m.toLowerCase());
  } else if (protocol === "anthropic") {
    perChoice = positive(sent.max_tokens)!; // thinking is inside max_tokens (Anthropic's extended thinking docs)
  } else if (protocol === "converse") {
    // One answer, at most inferenceConfig.maxTokens (Bedrock's Converse API reference).
    perChoice = positive((sent.inferenceConfig as Json | undefined)?.maxTokens) ?? modelMax;
  } else if (target.sized.upstream.path === "/responses") {
    perChoice = positive(sent.max_output_tokens) ?? modelMax; // reasoning is inside max_output_tokens
  } else {
    const limits = [positive(sent.max_tokens), positive(sent.max_completion_tokens)].filter((v): v is number => v !== undefined);
    // Reasoning and rejected predicted tokens are inside max_completion_tokens (OpenAI's API reference).
    perChoice = limits.length > 0 ? Math.max(...limits) : modelMax;
    choices = positive(sent.n) ?? 1;
    const reasoning = positive((sent.reasoning as Json | undefined)?.max_tokens) ?? 0;
    beyond = Math.max(geminiThinking(upstreamModel), reasoning);
    outputModalities = Array.isArray(sent.modalities) ? sent.modalities : [];
  }
  const tiers: (string | undefined)[] = [undefined];
  if (typeof sent.service_tier === "string")
    tiers.push(...(sent.service_tier === "auto" ? [...(price.serviceTiers?.keys() ?? [])] : [sent.service_tier]));
  const cacheControls = all.filter((o) => "cache_control" in o).map((o) => o.cache_control as Json);
  const imageOutput = outputModalities.includes("image") || model.outputModalities.includes("image");
  const bytes = Buffer.byteLength(forwarded);
  const input = bytes + media * imageTokens(upstreamModel) + toolTokens;
  return {
    // A native-only request may carry input the body does not show (a document fetched by URL).
    input: request.nativeOnly ? Math.max(input, model.contextLength) : input,
    output: (perChoice + beyond) * choices,
    images: imageOutput ? 4 * choices : 0,
    inputImages: media,
    cacheWrite5m: cacheControls.length > 0,
    cacheWrite1h: cacheControls.some((control) => control.ttl === "1h"),
    audioInput: all.some((o) => o.type === "input_audio" || (o.inlineData as Json | undefined)?.mimeType?.toString().startsWith("audio/")),
    audioOutput: outputModalities.includes("audio") || model.outputModalities.includes("audio"),
    imageOutput,
    tiers,
  };
}

// ---- Usage within those limits: at the limits more often than not ----

const fraction = fc.oneof(
  { weight: 3, arbitrary: fc.constant(1) },
  { weight: 1, arbitrary: fc.constant(0) },
  { weight: 2, arbitrary: fc.double({ min: 0, max: 1, noNaN: true }) },
);
const draws = fc.array(fraction, { minLength: 14, maxLength: 14 });

function usageWithin(limits: Limits, f: number[]): UsageRecord {
  const take = (index: number, of: number) => Math.floor(f[index]! * of);
  const inputTokens = take(0, limits.input);
  const outputTokens = take(1, limits.output);
  let inputLeft = inputTokens;
  const part = (index: number, allowed: boolean) => {
    if (!allowed) return 0;
    const units = take(index, inputLeft);
    inputLeft -= units;
    return units;
  };
  const cacheWrite1hTokens = part(2, limits.cacheWrite1h);
  const cacheWrite5mTokens = part(3, limits.cacheWrite5m);
  const audioInputTokens = part(4, limits.audioInput);
  const imageInputTokens = part(5, limits.inputImages > 0);
  const cachedInputTokens = part(6, true);
  let outputLeft = outputTokens;
  const out = (index: number, allowed: boolean) => {
    if (!allowed) return 0;
    const units = take(index, outputLeft);
    outputLeft -= units;
    return units;
  };
  return {
    inputTokens,
    cachedInputTokens,
    cacheWrite5mTokens,
    cacheWrite1hTokens,
    audioInputTokens,
    imageInputTokens,
    outputTokens,
    reasoningTokens: out(7, true),
    audioOutputTokens: out(8, limits.audioOutput),
    imageOutputTokens: out(9, limits.imageOutput),
    images: take(10, limits.images),
    inputImages: take(11, limits.inputImages),
    serviceTier: limits.tiers[Math.min(limits.tiers.length - 1, take(12, limits.tiers.length))],
  };
}

// ---- The catalogue of one model through one path ----

const DIALECTS: Record<Spec["dialect"], ClientDialect> = { chat: openAiChat, responses: openAiResponses, messages: anthropicMessages };

interface Case {
  spec: Spec;
  provider: (typeof PROVIDERS)[number];
  upstreamModel: string;
  price: Price;
  maxOutputTokens: number;
  outputModalities: string[];
}

const caseArb: fc.Arbitrary<Case> = fc
  .record({
    spec: specArb,
    providerIndex: fc.nat(PROVIDERS.length - 1),
    modelIndex: fc.nat(3),
    price: priceArb,
    maxOutputTokens: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 131_072 })),
    outputModalities: fc.subarray(["image", "audio"]),
  })
  .map(({ spec, providerIndex, modelIndex, price, maxOutputTokens, outputModalities }) => {
    const provider = PROVIDERS[providerIndex]!;
    return {
      spec,
      provider,
      upstreamModel: provider.models[modelIndex % provider.models.length]!,
      price,
      maxOutputTokens,
      // A request for image output is routed only to a model that produces images.
      outputModalities: ["text", ...new Set([...outputModalities, ...(spec.modalities === "image" ? ["image"] : [])])],
    };
  });

/** A request for a tier the path does not price is refused before any hold (billing/pricing.ts canPrice): no hold to check. */
const tierRefused = (c: Case): boolean =>
  c.spec.dialect !== "messages" && // a Messages body names no OpenAI tier (messagesBody)
  (c.spec.tier === "priority" || c.spec.tier === "flex") &&
  c.price.serviceTiers?.has(c.spec.tier) !== true;

function targetFor(c: Case): { target: CallTarget; request: ClientRequest } {
  const path = { provider: c.provider.name, upstreamModel: c.upstreamModel, credentialsRef: "", price: null };
  const catalogue: Catalogue__Output = {
    revision: "r",
    models: [
      catalogueModel("test/model", [path], {
        contextLength: 2_000_000,
        maxOutputTokens: c.maxOutputTokens,
        inputModalities: ["text", "image", "audio", "file"],
        outputModalities: c.outputModalities,
      }),
    ],
    defaults: { embeddings: "" },
  };
  const snapshot = buildSnapshot(catalogue);
  snapshot.models[0]!.paths[0]!.price = c.price;
  const dialect = DIALECTS[c.spec.dialect];
  const body =
    c.spec.dialect === "chat"
      ? chatBody(c.spec, "test/model")
      : c.spec.dialect === "responses"
        ? responsesBody(c.spec, "test/model")
        : messagesBody(c.spec, "test/model", c.provider.name === "anthropic" || c.provider.body?.(c.upstreamModel) === "anthropic");
  const request = dialect.parse(body);
  const { targets } = planTargets(context, snapshot, dialect.name, request);
  return { target: targets[0]!, request };
}

describe("the hold covers what the upstream may bill", () => {
  it("refuses a tier the path does not price before any hold", () => {
    fc.assert(
      fc.property(caseArb, (c) => {
        fc.pre(tierRefused(c));
        expect(() => targetFor(c)).toThrow(/service_tier/);
      }),
      { numRuns: 100 },
    );
  });

  it("costs at most the hold, for any usage within the request's limits", () => {
    fc.assert(
      fc.property(caseArb, draws, (c, f) => {
        fc.pre(!tierRefused(c));
        const { target, request } = targetFor(c);
        const limits = limitsOf(target, request, target.sized.upstream.body, c.price);
        const usage = usageWithin(limits, f);
        expect(costNano(c.price, usage), JSON.stringify({ usage, limits })).toBeLessThanOrEqual(target.sized.holdNano);
      }),
      { numRuns: 2_000 },
    );
  });

  it("costs a capped answer at most the smaller hold it was capped to", () => {
    fc.assert(
      fc.property(caseArb, draws, fc.double({ min: 0, max: 1, noNaN: true }), (c, f, where) => {
        fc.pre(!tierRefused(c));
        const { target, request } = targetFor(c);
        const { holdNano, minHoldNano } = target.sized;
        fc.pre(minHoldNano > 0n);
        const reserved = minHoldNano + BigInt(Math.floor(Number(holdNano - minHoldNano) * where));
        const chosen = chooseCall(target, reserved);
        expect(chosen).toBeDefined();
        const limits = limitsOf(target, request, chosen!.upstream.body, c.price);
        const usage = usageWithin(limits, f);
        expect(costNano(c.price, usage), JSON.stringify({ usage, limits, cappedTo: chosen!.cappedTo })).toBeLessThanOrEqual(reserved);
      }),
      { numRuns: 1_000 },
    );
  });
});
