// The Anthropic Messages dialect meets routing: native targets (Anthropic paths) get the body as written,
// a request only Anthropic can carry is planned onto Anthropic paths alone (or refused with a clear 400),
// and count_tokens is forwarded to Anthropic's endpoint or estimated, never billed.
import type { Catalogue__Output } from "@gateway/proto";
import { describe, expect, it } from "vitest";
import type { KeyIdentity } from "../../src/auth/key-cache";
import { TOKENS_PER_IMAGE_ALLOWANCE } from "../../src/billing/hold-estimate";
import { buildSnapshot } from "../../src/catalogue/catalogue-snapshot";
import { anthropicMessages } from "../../src/dialects/anthropic-messages/anthropic-messages-dialect";
import { parseCountTokensRequest } from "../../src/dialects/anthropic-messages/parse-request";
import { type PlanContext, planCall } from "../../src/engine/call-plan";
import { countTokens } from "../../src/engine/count-tokens";
import { insufficientCredits } from "../../src/errors";
import type { ProviderConfig } from "../../src/providers/provider-config";
import { UpstreamProvider } from "../../src/providers/upstream-provider";
import { PathHealth } from "../../src/routing/path-health";
import type { UpstreamHttp } from "../../src/upstream/upstream-http";
import { catalogueModel, protoPrice } from "../support/catalogue-model";
import { thrown } from "../support/thrown";
import { keyPools } from "../support/key-pools";
import { bodyOf } from "../support/upstream-body";

const price = protoPrice("3000000000", "15000000000");
const catalogue: Catalogue__Output = {
  revision: "r",
  models: [
    catalogueModel("openai/gpt", [{ provider: "openai", upstreamModel: "gpt", credentialsRef: "OPENAI_API_KEY", price }]),
    catalogueModel("anthropic/claude", [
      { provider: "anthropic", upstreamModel: "claude-up", credentialsRef: "ANTHROPIC_API_KEY", price },
      { provider: "openrouter", upstreamModel: "anthropic/claude", credentialsRef: "OPENROUTER_API_KEY", price },
    ]),
  ],
  defaults: { embeddings: "" },
};

type Post = Pick<UpstreamHttp, "post">["post"];
const sent: { url: string; headers: Record<string, string>; body: string }[] = [];
/** An upstream answer as undici gives it: its status, headers and a body of `json`. */
const answer = (statusCode: number, json: unknown) => ({
  statusCode,
  headers: {},
  body: bodyOf([Buffer.from(JSON.stringify(json))]),
});
/** A fake upstream: Anthropic's count_tokens answers {"input_tokens": 42}. */
const fakeHttp: Pick<UpstreamHttp, "post"> = {
  post: (async (url: string, headers: Record<string, string>, body: string) => {
    sent.push({ url, headers, body });
    return answer(200, { input_tokens: 42 });
  }) as unknown as Post,
};

function context(http: Pick<UpstreamHttp, "post"> = fakeHttp): PlanContext {
  const config = (name: string, protocol: ProviderConfig["protocol"]): ProviderConfig => ({
    name,
    baseUrl: `http://${name}.invalid/v1`,
    protocol,
    extraFields: [],
    responsesApi: false,
  });
  const providers = new Map([
    ["openai", new UpstreamProvider(config("openai", "openai-compatible"), http)],
    ["openrouter", new UpstreamProvider(config("openrouter", "openai-compatible"), http)],
    ["anthropic", new UpstreamProvider(config("anthropic", "anthropic"), http)],
  ]);
  return {
    providers,
    health: new PathHealth({ errorHalfLifeMs: 30_000, failureThreshold: 5, cooldownMs: 30_000 }),
    credentials: keyPools({ OPENAI_API_KEY: "sk-openai", OPENROUTER_API_KEY: "sk-or", ANTHROPIC_API_KEY: "sk-ant" }),
    maxAttempts: 4,
  };
}

const identity: KeyIdentity = {
  projectId: "p",
  keyId: "k",
  rpmLimit: null,
  key: { rpmLimit: null, moneyLimits: false, expiresAtMs: 0, limitsKeyId: "k" },
};
const messages = [{ role: "user", content: "hello" }];
const plan = (body: Record<string, unknown>) =>
  planCall(
    context(),
    buildSnapshot(catalogue),
    "req-1",
    identity,
    anthropicMessages,
    anthropicMessages.parse({ max_tokens: 50, messages, ...body }),
  );
const WEB_SEARCH = { type: "web_search_20250305", name: "web_search" };
/** A document Anthropic fetches itself: native-only, and its size is not in the body. */
const PDF_BY_URL = [{ role: "user", content: [{ type: "document", source: { type: "url", url: "https://example.com/a.pdf" } }] }];

describe("planning an Anthropic Messages request", () => {
  it("sends the body as written to an Anthropic path, and translates it for the others", () => {
    const call = plan({ model: "anthropic/claude", system: [{ type: "text", text: "s", cache_control: { type: "ephemeral" } }] });
    const [anthropic, openrouter] = call.targets;
    expect(anthropic!.native).toBeDefined();
    expect(JSON.parse(anthropic!.sized.upstream.body).system).toEqual([{ type: "text", text: "s", cache_control: { type: "ephemeral" } }]);
    expect(openrouter!.native).toBeUndefined();
    expect(JSON.parse(openrouter!.sized.upstream.body).messages[0]).toEqual({ role: "system", content: [{ type: "text", text: "s" }] });
  });

  it("plans a native-only request (a document by URL) onto Anthropic paths only", () => {
    const call = plan({ model: "anthropic/claude", messages: PDF_BY_URL });
    expect(call.targets.map((target) => target.path.provider)).toEqual(["anthropic"]);
    expect(call.trace.candidates).toEqual(["anthropic/claude"]);
  });

  it("holds a native-only request's input at the model's whole context: the fetched document is not in the body", () => {
    const target = plan({ model: "anthropic/claude", messages: PDF_BY_URL }).targets[0]!;
    expect(target.sized.bound.inputTokens).toBe(128_000);
    expect(plan({ model: "anthropic/claude" }).targets[0]!.sized.bound.inputTokens).toBeLessThan(1_000);
  });

  it("refuses it with a clear 400 for a model without an Anthropic path", () => {
    expect(thrown(() => plan({ model: "openai/gpt", messages: PDF_BY_URL }))).toMatchObject({
      status: 400,
      code: "unsupported_input",
      message:
        "messages.0.content.0.source: a document of source type url can only be sent to an Anthropic model (a base64 PDF or plain text is translated). The requested model is answered through a translation that cannot carry it.",
    });
  });

  it("refuses a server tool even for an Anthropic model: it runs under the operator's key, with fees not billed", () => {
    expect(thrown(() => plan({ model: "anthropic/claude", tools: [WEB_SEARCH] }))).toMatchObject({
      status: 400,
      code: "unsupported_input",
    });
  });
});

describe("countTokens", () => {
  const admitted = async () => {};
  const count = (body: Record<string, unknown>, headers = {}, admit = admitted) =>
    countTokens(
      context(),
      buildSnapshot(catalogue),
      anthropicMessages.name,
      parseCountTokensRequest({ messages, ...body }, headers),
      admit,
    );

  it("forwards to Anthropic's /messages/count_tokens for a model answered there, with the client's anthropic-beta", async () => {
    sent.length = 0;
    const result = await count({ model: "anthropic/claude", max_tokens: 9 }, { "anthropic-beta": "token-counting-2024-11-01" });
    expect(result).toEqual({ inputTokens: 42, estimated: false, model: "anthropic/claude" });
    expect(sent).toHaveLength(1);
    expect(sent[0]!.url).toBe("http://anthropic.invalid/v1/messages/count_tokens");
    expect(sent[0]!.headers).toMatchObject({ "x-api-key": "sk-ant", "anthropic-beta": "token-counting-2024-11-01" });
    expect(JSON.parse(sent[0]!.body)).toEqual({ model: "claude-up", messages });
  });

  it("estimates for any other model (bytes / 4 of the translated body), calling no upstream", async () => {
    sent.length = 0;
    const result = await count({ model: "openai/gpt" });
    expect(result.estimated).toBe(true);
    expect(result.model).toBe("openai/gpt");
    expect(result.inputTokens).toBeGreaterThan(0);
    expect(sent).toHaveLength(0);
  });

  it("estimates an image as the hold's image allowance, not its base64 bytes", async () => {
    const data = "A".repeat(1_000_000);
    const image = { type: "image", source: { type: "base64", media_type: "image/png", data } };
    const result = await count({ model: "openai/gpt", messages: [{ role: "user", content: [{ type: "text", text: "hi" }, image] }] });
    const textOnly = await count({ model: "openai/gpt", messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }] });
    expect(result.inputTokens - textOnly.inputTokens).toBeGreaterThanOrEqual(TOKENS_PER_IMAGE_ALLOWANCE - 10);
    expect(result.inputTokens - textOnly.inputTokens).toBeLessThanOrEqual(TOKENS_PER_IMAGE_ALLOWANCE + 10);
  });

  it("refuses it as the call would be refused for money (issue 33, item 5), before any upstream count or estimate", async () => {
    sent.length = 0;
    const broke = async () => {
      throw insufficientCredits();
    };
    for (const model of ["anthropic/claude", "openai/gpt"]) {
      await expect(count({ model }, {}, broke)).rejects.toMatchObject({ status: 402, code: "insufficient_credits" });
    }
    expect(sent).toHaveLength(0);
    // Routing's own refusals come first, as for a call: an unknown model is 400 whatever the balance.
    await expect(count({ model: "nope/nope" }, {}, broke)).rejects.toMatchObject({ status: 400, code: "model_unknown" });
  });

  it("refuses a native-only request for a model without an Anthropic path, as a call would", async () => {
    await expect(count({ model: "openai/gpt", messages: PDF_BY_URL })).rejects.toMatchObject({ status: 400, code: "unsupported_input" });
  });

  it("turns an upstream refusal into the gateway's error (its status kept)", async () => {
    const refusing: Pick<UpstreamHttp, "post"> = {
      post: (async () => answer(529, { type: "error", error: { type: "overloaded_error", message: "Overloaded" } })) as unknown as Post,
    };
    const failure = await countTokens(
      context(refusing),
      buildSnapshot(catalogue),
      anthropicMessages.name,
      parseCountTokensRequest({ model: "anthropic/claude", messages }),
      admitted,
    ).catch((error: unknown) => error);
    expect(failure).toMatchObject({ status: 529, code: 529, kind: "upstream_failed" });
  });

  it("turns an upstream redirect into 502 upstream_error, never the 3xx", async () => {
    const redirecting: Pick<UpstreamHttp, "post"> = { post: (async () => answer(307, {})) as unknown as Post };
    const failure = await countTokens(
      context(redirecting),
      buildSnapshot(catalogue),
      anthropicMessages.name,
      parseCountTokensRequest({ model: "anthropic/claude", messages }),
      admitted,
    ).catch((error: unknown) => error);
    expect(failure).toMatchObject({ status: 502, code: 502, type: "upstream_error" });
  });
});
