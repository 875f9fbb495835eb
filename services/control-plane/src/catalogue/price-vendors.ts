// Where each model vendor's own prices live in the public lists, and which vendors the data plane
// reaches directly (the rest through OpenRouter).

/** Where a vendor's own prices live in models.dev and litellm, and its direct adapter if the data plane has one. */
export interface VendorSources {
  modelsDev?: string;
  litellmPrefix?: string;
  litellmProvider?: string;
  direct?: { provider: string; credentials: string };
}

// Direct paths only for the three providers the data plane has adapters for; the
// other vendors' native prices still serve as a second opinion on OpenRouter's.
export const VENDORS: Record<string, VendorSources> = {
  openai: {
    modelsDev: "openai",
    litellmPrefix: "",
    litellmProvider: "openai",
    direct: { provider: "openai", credentials: "OPENAI_API_KEY" },
  },
  anthropic: {
    modelsDev: "anthropic",
    litellmPrefix: "",
    litellmProvider: "anthropic",
    direct: { provider: "anthropic", credentials: "ANTHROPIC_API_KEY" },
  },
  google: {
    modelsDev: "google",
    litellmPrefix: "gemini/",
    litellmProvider: "gemini",
    direct: { provider: "google", credentials: "GOOGLE_API_KEY" }, // the name the rest of the project uses
  },
  deepseek: { modelsDev: "deepseek", litellmPrefix: "deepseek/", litellmProvider: "deepseek" },
  mistralai: { modelsDev: "mistral", litellmPrefix: "mistral/", litellmProvider: "mistral" },
  "x-ai": { modelsDev: "xai", litellmPrefix: "xai/", litellmProvider: "xai" },
  moonshotai: { modelsDev: "moonshotai", litellmPrefix: "moonshot/", litellmProvider: "moonshot" },
  minimax: { modelsDev: "minimax", litellmPrefix: "minimax/", litellmProvider: "minimax" },
  "z-ai": { modelsDev: "zai", litellmPrefix: "zai/", litellmProvider: "zai" },
  perplexity: { modelsDev: "perplexity", litellmPrefix: "perplexity/", litellmProvider: "perplexity" },
  qwen: { modelsDev: "alibaba", litellmPrefix: "dashscope/", litellmProvider: "dashscope" },
  cohere: { modelsDev: "cohere" },
  xiaomi: { modelsDev: "xiaomi" },
  inception: { modelsDev: "inception" },
  upstage: { modelsDev: "upstage" },
  poolside: { modelsDev: "poolside" },
  sakana: { modelsDev: "sakana" },
  morph: { modelsDev: "morph" },
  stepfun: { modelsDev: "stepfun" },
};

/** The vendor whose direct path is this catalogue provider (`google` -> the Gemini API's lists). */
export const directVendor = (provider: string): VendorSources | undefined =>
  Object.values(VENDORS).find((vendor) => vendor.direct?.provider === provider);
