// Tokens a provider bills beyond what the forwarded body shows, or produces
// beyond the output limit it is sent, from each provider's own documentation.
// docs/money.md ("The worst case") gives the source of each figure, and says
// what no document bounds.
import { TOKENS_PER_IMAGE_ALLOWANCE } from "./hold-estimate";

/** A Gemini model, directly or through an aggregator ("google/gemini-2.5-flash"). */
export const isGeminiModel = (upstreamModel: string): boolean => /(^|\/)gemini-/i.test(upstreamModel);

/** A Claude model, directly or through an aggregator ("anthropic/claude-sonnet-4"). */
export const isClaudeModel = (upstreamModel: string): boolean => /(^|\/)claude/i.test(upstreamModel);

/**
 * The thinking budgets' upper ends (ai.google.dev/gemini-api/docs/thinking): dynamic thinking
 * (`thinkingBudget: -1`, the default the gateway leaves in place) thinks up to them, and Gemini
 * counts thoughts apart from `maxOutputTokens` (usage's thoughtsTokenCount beside candidatesTokenCount).
 */
const GEMINI_THINKING_BUDGETS: readonly [RegExp, number][] = [
  [/gemini-2\.5-pro/i, 32_768],
  [/gemini-2\.5-flash/i, 24_576], // Flash and Flash-Lite alike
];
/** Gemini models without thinking: 1.x, and 2.0 Flash and Flash-Lite (not 2.0 Flash Thinking). */
const GEMINI_WITHOUT_THINKING = /gemini-(1\.|2\.0-flash(?!-thinking))/i;

/**
 * Thinking a Gemini model may produce beyond its output limit. A model with no published
 * budget ceiling (Gemini 3 sets thinking levels, not budgets) is allowed its whole maximum output
 * again: an assumption, not a documented bound.
 */
export function geminiThinkingAllowance(upstreamModel: string, maxOutputTokens: number, contextLength: number): number {
  if (GEMINI_WITHOUT_THINKING.test(upstreamModel)) return 0;
  for (const [pattern, budget] of GEMINI_THINKING_BUDGETS) if (pattern.test(upstreamModel)) return budget;
  return maxOutputTokens > 0 ? maxOutputTokens : contextLength;
}

/**
 * The tool-use system prompt Anthropic adds to any request with tools: the highest count in its
 * table (Claude 3 Opus with tool_choice auto; current models add 346 or 313).
 */
export const ANTHROPIC_TOOL_PROMPT_TOKENS = 530;

/**
 * Each Anthropic-defined tool (bash, text editor, computer, memory: only their type and name are
 * in the body): the largest documented, computer use's 735 tokens per definition plus up to 499 of
 * its own system prompt (bash adds 245, the text editor 700).
 */
export const ANTHROPIC_DEFINED_TOOL_TOKENS = 1_234;

/**
 * The tokens one image or document part may count. By default the largest documented per image:
 * Claude Opus 4.7 reads up to about 3.75 megapixels in 28-pixel patches (~4,784 tokens; earlier
 * Claude models ~1,600); OpenAI's patch-based models at most 1,536 patches times their multiplier
 * (gpt-4.1-nano's 2.46: 3,779); GPT-4o at most 85 + 8 tiles x 170. GPT-4o mini counts the same
 * tiles far higher, 2,833 + 8 x 5,667.
 */
export function imageTokenAllowance(upstreamModel: string): number {
  return /gpt-4o-mini/i.test(upstreamModel) ? 48_169 : TOKENS_PER_IMAGE_ALLOWANCE;
}
