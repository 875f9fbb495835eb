// The worst-case cost of a call: the hold placed before it is forwarded. The
// most input and output the upstream can bill for the body as sent (each
// provider's limits and additions: provider-allowances.ts), each side priced at
// the highest rate that can apply to it, plus the per-unit prices. The settle
// bills the actual usage (pricing.ts) and never more than the hold, so this is
// what keeps the charge equal to the provider's invoice (docs/money.md, "The
// worst case").
import type { ModelEntry, Price, TokenRate, TokenRates } from "../catalogue/catalogue-snapshot";
import { bodyMarks, choicesAsked, IMAGES_PER_ANSWER_BOUND, mayProduce, outputLimitPerChoice } from "./hold-estimate";
import {
  ANTHROPIC_DEFINED_TOOL_TOKENS,
  ANTHROPIC_TOOL_PROMPT_TOKENS,
  geminiThinkingAllowance,
  imageTokenAllowance,
  isClaudeModel,
  isGeminiModel,
} from "./provider-allowances";
import { MILLION, perMillionRoundedUp, ratesFor } from "./pricing";

/** The most a call can be billed for, in units, and which rates can apply to them. */
export interface UsageBound {
  /** Every prompt token the upstream can count. */
  inputTokens: number;
  /** The output limit the upstream enforces, over all choices: what a cap replaces. */
  outputLimitTokens: number;
  /** Output beyond that limit: thinking the upstream does not count in it. */
  outputBeyondLimitTokens: number;
  /** Output images, for paths priced per image. */
  images: number;
  /** Input images and documents, for paths priced per input image. */
  inputImages: number;
  webSearches: number;
  cacheWrite: "none" | "5m" | "1h";
  audioInput: boolean;
  imageInput: boolean;
  audioOutput: boolean;
  imageOutput: boolean;
  /** Service tiers the body names ("auto": any the path prices). */
  serviceTiers: readonly string[];
}

/** What the bound of one call is read from. */
export interface CallFacts {
  endpoint: "chat" | "embeddings";
  /** The protocol of the body sent: "openai-compatible", "anthropic", "gemini" (on any provider, a cloud's included) or another. */
  protocol: string;
  upstreamModel: string;
  model: Pick<ModelEntry, "maxOutputTokens" | "contextLength" | "outputModalities">;
  /** The request in the shared representation (its max tokens, choices, modalities and tools as the gateway reads them). */
  shared: Record<string, unknown>;
  /** The client's own body, when it goes upstream as written (a native codec). */
  original: Record<string, unknown> | undefined;
  /** The body as forwarded. */
  forwardedBody: string;
  /** Input the body does not show may be fetched by the upstream (a native-only request). */
  nativeOnly: boolean;
}

const NOTHING: UsageBound = {
  inputTokens: 0,
  outputLimitTokens: 0,
  outputBeyondLimitTokens: 0,
  images: 0,
  inputImages: 0,
  webSearches: 0,
  cacheWrite: "none",
  audioInput: false,
  imageInput: false,
  audioOutput: false,
  imageOutput: false,
  serviceTiers: [],
};

/** Bytes a max tokens field can add to the forwarded body when an answer is capped (`"max_output_tokens":<16 digits>,`, or a new generationConfig). */
const CAP_FIELD_BYTES = 64;

export function usageBound(facts: CallFacts): UsageBound {
  const { protocol, upstreamModel, model, shared, forwardedBody } = facts;
  // Embeddings produce no output, and their input is text or token ids, at least a byte each.
  if (facts.endpoint === "embeddings") return { ...NOTHING, inputTokens: Buffer.byteLength(forwardedBody) };
  const sent = facts.original ?? shared;
  const marks = bodyMarks(forwardedBody);
  const media = marks.mediaParts;
  const openAiCompatible = protocol === "openai-compatible";
  const claude = protocol === "anthropic" || (openAiCompatible && isClaudeModel(upstreamModel));
  const gemini = protocol === "gemini" || (openAiCompatible && isGeminiModel(upstreamModel));

  let inputTokens = Buffer.byteLength(forwardedBody) + media * imageTokenAllowance(upstreamModel);
  if (claude && Array.isArray(sent.tools) && sent.tools.length > 0) inputTokens += anthropicToolTokens(sent.tools);
  // A native-only request may carry input its body does not show (a document Anthropic fetches by URL).
  if (facts.nativeOnly) inputTokens = Math.max(inputTokens, model.contextLength);

  // Anthropic answers one choice whatever `n` says; the others honour it (Gemini as candidateCount).
  const choices = protocol === "anthropic" ? 1 : choicesAsked(shared);
  const perChoice = outputLimitPerChoice(shared, model.maxOutputTokens, model.contextLength);
  // Anthropic counts thinking inside max_tokens, OpenAI reasoning (and rejected predicted tokens)
  // inside max_completion_tokens / max_output_tokens; Gemini thinks beyond maxOutputTokens, and
  // OpenRouter's `reasoning.max_tokens` is a budget it does not say stays inside max_tokens.
  let beyondPerChoice = gemini ? geminiThinkingAllowance(upstreamModel, model.maxOutputTokens, model.contextLength) : 0;
  if (openAiCompatible) beyondPerChoice = Math.max(beyondPerChoice, reasoningBudget(shared));

  const imageOutput = mayProduce("image", shared, model.outputModalities);
  return {
    inputTokens,
    outputLimitTokens: perChoice * choices,
    outputBeyondLimitTokens: beyondPerChoice * choices,
    images: imageOutput ? IMAGES_PER_ANSWER_BOUND * choices : 0,
    inputImages: media,
    webSearches: openAiCompatible && shared.web_search_options !== undefined && shared.web_search_options !== null ? choices : 0,
    cacheWrite: marks.cacheWrite,
    audioInput: marks.audioInput,
    imageInput: media > 0,
    audioOutput: mayProduce("audio", shared, model.outputModalities),
    imageOutput,
    serviceTiers: marks.serviceTiers,
  };
}

function anthropicToolTokens(tools: unknown[]): number {
  const defined = tools.filter((tool) => {
    const type = (tool as { type?: unknown } | null)?.type;
    return typeof type === "string" && type !== "custom" && type !== "function";
  }).length;
  return ANTHROPIC_TOOL_PROMPT_TOKENS + defined * ANTHROPIC_DEFINED_TOOL_TOKENS;
}

/** OpenRouter's `reasoning.max_tokens`, when the body sets one. */
function reasoningBudget(body: Record<string, unknown>): number {
  const budget = (body.reasoning as { max_tokens?: unknown } | null | undefined)?.max_tokens;
  return typeof budget === "number" && Number.isInteger(budget) && budget > 0 ? budget : 0;
}

/** The bound of the same call with its answer capped to `maxTokens` (one choice; the cap field's bytes added). */
export function cappedBound(bound: UsageBound, maxTokens: number): UsageBound {
  return { ...bound, inputTokens: bound.inputTokens + CAP_FIELD_BYTES, outputLimitTokens: maxTokens };
}

/** Rates every call may be billed at: cache reads may always happen, and any answer may reason. */
const INPUT_RATES: readonly TokenRate[] = ["input", "cachedInput"];
const OUTPUT_RATES: readonly TokenRate[] = ["output", "reasoning"];

/**
 * The highest input-side and output-side rates the settle may use for this call: over the
 * standard rates and each tier the body names, both below and (when the input bound exceeds the
 * threshold) above the long-context threshold; cache writes only when the body can write a cache.
 */
export function worstCaseRates(price: Price, bound: UsageBound): WorstRates {
  // Without a named tier, the answer depends on the price (fixed for its catalogue revision) and seven
  // flags of the bound: resolved once per price and flags, not per call.
  if (bound.serviceTiers.length > 0) return resolveWorstRates(price, bound);
  const above = price.longContext ? bound.inputTokens > price.longContext.aboveInputTokens : false;
  const flags =
    (above ? 1 : 0) |
    (bound.cacheWrite === "5m" ? 2 : bound.cacheWrite === "1h" ? 4 : 0) |
    (bound.audioInput ? 8 : 0) |
    (bound.imageInput ? 16 : 0) |
    (bound.audioOutput ? 32 : 0) |
    (bound.imageOutput ? 64 : 0);
  let byFlags = WORST_RATES.get(price);
  if (!byFlags) {
    byFlags = [];
    WORST_RATES.set(price, byFlags);
  }
  byFlags[flags] ??= Object.freeze(resolveWorstRates(price, bound));
  return byFlags[flags];
}

type WorstRates = Readonly<{ input: bigint; output: bigint }>;
const WORST_RATES = new WeakMap<Price, WorstRates[]>();

function resolveWorstRates(price: Price, bound: UsageBound): WorstRates {
  const inputs = price.longContext && bound.inputTokens > price.longContext.aboveInputTokens ? [0, bound.inputTokens] : [0];
  const tiers: (string | undefined)[] = [undefined];
  for (const tier of bound.serviceTiers) tiers.push(...(tier === "auto" ? (price.serviceTiers?.keys() ?? []) : [tier]));
  const sets: TokenRates[] = inputs.flatMap((inputTokens) => tiers.map((tier) => ratesFor(price, inputTokens, tier)));

  const input: TokenRate[] = [...INPUT_RATES];
  if (bound.cacheWrite !== "none") input.push("cacheWrite5m");
  if (bound.cacheWrite === "1h") input.push("cacheWrite1h");
  if (bound.audioInput) input.push("audioInput");
  if (bound.imageInput) input.push("imageInput");
  const output: TokenRate[] = [...OUTPUT_RATES];
  if (bound.audioOutput) output.push("audioOutput");
  if (bound.imageOutput) output.push("imageOutput");
  return { input: highest(sets, input), output: highest(sets, output) };
}

function highest(sets: readonly TokenRates[], rates: readonly TokenRate[]): bigint {
  let max = 0n;
  for (const set of sets) for (const rate of rates) if ((set[rate] ?? 0n) > max) max = set[rate]!;
  return max;
}

/** The per-unit parts of the worst case: the request, output and input images, web searches. */
function unitsNano(price: Price, bound: UsageBound): bigint {
  const times = (count: number, each: bigint | null | undefined) => (each ? BigInt(count) * each : 0n);
  return (
    times(1, price.requestNano) +
    times(bound.images, price.imageNano) +
    times(bound.inputImages, price.inputImageNano) +
    times(bound.webSearches, price.webSearchNano)
  );
}

/** The worst-case cost in nano-USD: token parts summed and rounded up once (as the settle rounds), plus the unit parts. */
export function worstCaseNano(price: Price, bound: UsageBound): bigint {
  const rates = worstCaseRates(price, bound);
  const outputTokens = bound.outputLimitTokens + bound.outputBeyondLimitTokens;
  const numerator = BigInt(bound.inputTokens) * rates.input + BigInt(outputTokens) * rates.output;
  return perMillionRoundedUp(numerator) + unitsNano(price, bound);
}

/**
 * The largest output limit whose worst case fits the budget: the largest n with
 * worstCaseNano(price, { ...bound, outputLimitTokens: n }) <= budgetNano (0 when none does).
 */
export function affordableOutputTokens(price: Price, bound: UsageBound, budgetNano: bigint): number {
  const rates = worstCaseRates(price, bound);
  const room =
    (budgetNano - unitsNano(price, bound)) * MILLION -
    BigInt(bound.inputTokens) * rates.input -
    BigInt(bound.outputBeyondLimitTokens) * rates.output;
  if (room < 0n) return 0;
  if (rates.output === 0n) return Number.MAX_SAFE_INTEGER;
  const tokens = room / rates.output;
  return tokens > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(tokens);
}
