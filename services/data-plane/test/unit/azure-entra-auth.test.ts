// How Azure calls are authenticated: the resource's api-key in the adapter's
// own header, or, without one, an Entra ID token from the credential chain,
// fetched once for concurrent requests, refreshed before it expires, and never
// leaked into an error or a log when it cannot be had.
import type { AccessToken, GetTokenOptions, TokenCredential } from "@azure/identity";
import { afterEach, describe, expect, it, vi } from "vitest";
import { azureAccess } from "../../src/providers/azure/azure-access";
import { COGNITIVE_SERVICES_SCOPE, EntraTokenAuth } from "../../src/providers/azure/entra-token-auth";
import { UpstreamCredentialsError } from "../../src/providers/cloud/upstream-auth";
import type { ProviderConfig } from "../../src/providers/provider-config";
import type { UpstreamCall } from "../../src/providers/provider-adapter";

const config = (apiKey?: string): ProviderConfig => ({
  name: "azure",
  baseUrl: "https://example.openai.azure.com/openai",
  protocol: "azure",
  extraFields: [],
  responsesApi: false,
  cloud: { region: "", apiForm: "deployments", apiVersion: "2024-10-21", ...(apiKey ? { apiKey } : {}) },
});
const call: UpstreamCall = {
  path: "/deployments/d/chat/completions?api-version=2024-10-21",
  headers: { "content-type": "application/json" },
  body: "{}",
};
const context = { upstreamModel: "d", apiKey: undefined, maxOutputTokens: 100 };

/** A credential that hands out numbered tokens valid for `lifetimeMs`, after `delayMs`. */
function countingCredential(lifetimeMs = 3_600_000, delayMs = 5) {
  const scopes: (string | string[])[] = [];
  let issued = 0;
  const credential: TokenCredential = {
    async getToken(scope: string | string[], _options?: GetTokenOptions): Promise<AccessToken> {
      scopes.push(scope);
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      issued++;
      return { token: `entra-token-${issued}`, expiresOnTimestamp: Date.now() + lifetimeMs };
    },
  };
  return { credential, scopes, issued: () => issued };
}

const closers: { close(): void }[] = [];
afterEach(() => {
  for (const closer of closers.splice(0)) closer.close();
  vi.useRealTimers();
});

describe("with an api-key", () => {
  it("the adapter sends it as api-key and no per-call auth is added", () => {
    const access = azureAccess(config("azure-key"), () => {});
    expect(access.auth).toBeUndefined();
    expect(access.adapterFor("d").request("chat", { messages: [] }, context).headers["api-key"]).toBe("azure-key");
  });
});

describe("without an api-key", () => {
  it("each call carries the Entra ID token for Azure AI services as a bearer", async () => {
    const { credential, scopes } = countingCredential();
    const access = azureAccess(config(), () => {}, credential);
    closers.push(access.auth!);
    const request = access.adapterFor("d").request("chat", { messages: [] }, context);
    const headers = await access.auth!.headers(`https://example.openai.azure.com/openai${request.path}`, request);
    expect(headers.authorization).toBe("Bearer entra-token-1");
    expect(headers["api-key"]).toBeUndefined();
    expect(headers["content-type"]).toBe("application/json");
    expect(scopes).toEqual([COGNITIVE_SERVICES_SCOPE]);
  });

  it("200 concurrent calls share one token fetch", async () => {
    const { credential, issued } = countingCredential();
    const auth = new EntraTokenAuth(
      "azure",
      () => credential,
      () => {},
    );
    closers.push(auth);
    const all = await Promise.all(Array.from({ length: 200 }, () => auth.headers("u", call)));
    expect(new Set(all.map((headers) => headers.authorization))).toEqual(new Set(["Bearer entra-token-1"]));
    expect(issued()).toBe(1);
    expect(auth.fetches).toBe(1);
  });

  it("refreshes before expiry in the background, once, and callers never wait on it", async () => {
    vi.useFakeTimers({ now: 1_000_000 });
    const { credential, issued } = countingCredential(20 * 60_000, 0);
    const auth = new EntraTokenAuth(
      "azure",
      () => credential,
      () => {},
    );
    closers.push(auth);
    const first = auth.headers("u", call);
    await vi.advanceTimersByTimeAsync(1);
    expect((await first).authorization).toBe("Bearer entra-token-1");
    await vi.advanceTimersByTimeAsync(15 * 60_000 + 1); // 5 minutes before expiry
    expect(issued()).toBe(2);
    const all = await Promise.all(Array.from({ length: 200 }, () => auth.headers("u", call)));
    expect(new Set(all.map((headers) => headers.authorization))).toEqual(new Set(["Bearer entra-token-2"]));
    expect(issued()).toBe(2);
  });

  it("a credential that fails gives UpstreamCredentialsError and a log line, with no secret in either", async () => {
    const secret = "client-secret-value-do-not-leak";
    const failing: TokenCredential = {
      getToken: async () => {
        const error = new Error(`AADSTS7000215: Invalid client secret provided: ${secret}`);
        error.name = "AuthenticationError";
        throw error;
      },
    };
    const log = vi.fn();
    const auth = new EntraTokenAuth("azure-eu", () => failing, log);
    closers.push(auth);
    const error = await auth.headers("u", call).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(UpstreamCredentialsError);
    expect((error as Error).message).toContain("AuthenticationError");
    expect(JSON.stringify({ message: (error as Error).message, cause: String((error as Error).cause) })).not.toContain(secret);
    expect(log).toHaveBeenCalledWith({ provider: "azure-eu", reason: "AuthenticationError" }, expect.any(String));
    expect(JSON.stringify(log.mock.calls)).not.toContain(secret);
  });

  it("a credential that returns no token fails the same way", async () => {
    const auth = new EntraTokenAuth(
      "azure",
      () => ({ getToken: async () => null }),
      () => {},
    );
    closers.push(auth);
    await expect(auth.headers("u", call)).rejects.toBeInstanceOf(UpstreamCredentialsError);
  });
});
