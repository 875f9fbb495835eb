// The real token path, offline: @azure/identity's ManagedIdentityCredential
// (App Service form: IDENTITY_ENDPOINT + IDENTITY_HEADER) fetching from the
// mock provider's Entra ID stand-in, behind EntraTokenAuth: 200 concurrent
// calls cause one token request, and the token opens the mock's Azure resource.
import type { AddressInfo } from "node:net";
import { ManagedIdentityCredential } from "@azure/identity";
import { afterAll, beforeAll, expect, it } from "vitest";
import { buildMockProvider } from "../../../mock-provider/src/app";
import { AzureOpenAiAdapter } from "../../src/providers/azure/azure-openai-adapter";
import { EntraTokenAuth } from "../../src/providers/azure/entra-token-auth";

const app = buildMockProvider();
let base = "";
const saved = { endpoint: process.env.IDENTITY_ENDPOINT, header: process.env.IDENTITY_HEADER };

beforeAll(async () => {
  await app.listen({ port: 0, host: "127.0.0.1" });
  base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  // The library reads these when the credential is built.
  process.env.IDENTITY_ENDPOINT = `${base}/azure/identity/token`;
  process.env.IDENTITY_HEADER = "azure-mock-identity-header";
});

afterAll(async () => {
  for (const [name, value] of [
    ["IDENTITY_ENDPOINT", saved.endpoint],
    ["IDENTITY_HEADER", saved.header],
  ] as const) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  await app.close();
});

it("one token for 200 concurrent calls, accepted by the Azure resource", async () => {
  const auth = new EntraTokenAuth(
    "azure",
    () => new ManagedIdentityCredential(),
    () => {},
  );
  try {
    const adapter = new AzureOpenAiAdapter({ apiForm: "deployments", apiVersion: "2024-10-21" });
    const call = adapter.request(
      "chat",
      { messages: [{ role: "user", content: "Hi" }] },
      { upstreamModel: "gpt-4.1-nano", apiKey: undefined, maxOutputTokens: 100 },
    );
    const url = `${base}/azure/openai${call.path}`;
    const all = await Promise.all(Array.from({ length: 200 }, () => auth.headers(url, call)));
    expect(new Set(all.map((headers) => headers.authorization)).size).toBe(1);
    expect(auth.fetches).toBe(1);
    expect(((await (await fetch(`${base}/_mock/azure/tokens`)).json()) as { issued: number }).issued).toBe(1);
    const answer = await fetch(url, { method: "POST", headers: all[0], body: call.body });
    expect(answer.status).toBe(200);
    expect(((await answer.json()) as { model: string }).model).toBe("gpt-4.1-nano-2025-04-14");
  } finally {
    auth.close();
  }
});
