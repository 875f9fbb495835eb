// A provider's send with a cloud's auth (providers/upstream-provider.ts): the credential is added last,
// over the trace headers, and an attempt stopped while its credential is fetched ends then, sending nothing.
import { describe, expect, it, vi } from "vitest";
import type { UpstreamAuth } from "../../src/providers/cloud/upstream-auth";
import type { ProviderAdapter } from "../../src/providers/provider-adapter";
import type { ProviderConfig } from "../../src/providers/provider-config";
import { UpstreamProvider } from "../../src/providers/upstream-provider";

const config: ProviderConfig = {
  name: "bedrock",
  baseUrl: "https://bedrock.test",
  protocol: "bedrock",
  extraFields: [],
  responsesApi: false,
};
const call = { path: "/model/m/invoke", headers: { "content-type": "application/json" }, body: "{}" };

function provider(auth: UpstreamAuth) {
  const post = vi.fn(async () => ({ statusCode: 200 }) as never);
  const access = { adapterFor: () => ({}) as ProviderAdapter, auth };
  return { post, upstream: new UpstreamProvider(config, { post }, () => {}, access) };
}

describe("UpstreamProvider.send with a cloud's auth", () => {
  it("signs the call with the trace headers already in it, and sends what the auth returned", async () => {
    const seen: Record<string, string>[] = [];
    const auth: UpstreamAuth = {
      headers: async (_url, signed) => {
        seen.push(signed.headers);
        return { ...signed.headers, authorization: "signed" };
      },
      close: () => {},
    };
    const { post, upstream } = provider(auth);
    await upstream.send(call, new AbortController().signal, { dispatched: false }, { traceparent: "00-abc-def-01" });
    expect(seen).toEqual([{ "content-type": "application/json", traceparent: "00-abc-def-01" }]);
    expect(post).toHaveBeenCalledWith(
      "https://bedrock.test/model/m/invoke",
      { "content-type": "application/json", traceparent: "00-abc-def-01", authorization: "signed" },
      "{}",
      expect.anything(),
      expect.anything(),
    );
  });

  it("an attempt stopped while its credential is fetched ends then, with the signal's reason, and sends nothing", async () => {
    const { post, upstream } = provider({ headers: () => new Promise(() => {}), close: () => {} });
    const controller = new AbortController();
    const sending = upstream.send(call, controller.signal, { dispatched: false });
    controller.abort(new Error("client gone"));
    await expect(sending).rejects.toThrow("client gone");
    expect(post).not.toHaveBeenCalled();
  });
});
