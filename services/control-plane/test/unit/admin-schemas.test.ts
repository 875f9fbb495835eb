// The admin routes' response schemas are also their serializers, which drop any property a schema
// does not list: each presenter's output, every field filled (nulls and set values), must come back
// from fastify's serializer unchanged.
import Fastify from "fastify";
import { describe, expect, it } from "vitest";
import { addAdminSchemas, listOf, ref } from "../../src/admin/admin-schemas";
import { presentBalance, presentHold, presentKey, presentLedgerEntry, presentProject, presentUsage } from "../../src/admin/presenters";

const at = new Date("2026-11-25T10:00:00.000Z");
const day = new Date("2026-11-25T00:00:00.000Z");

async function served(schema: object, answer: unknown): Promise<unknown> {
  const app = Fastify();
  addAdminSchemas(app);
  app.get("/", { schema: { response: { 200: schema } } }, async () => answer);
  const response = await app.inject({ method: "GET", url: "/" });
  await app.close();
  return response.json();
}

const project = { id: "p1", name: "One", createdAt: at, rpmLimit: null, dailyCapNano: null };
const key = {
  id: "k1",
  projectId: "p1",
  hint: "abcd",
  name: null,
  createdAt: at,
  revokedAt: null,
  expiresAt: null,
  replacedBy: null,
  rpmLimit: null,
  dailyCapNano: null,
  budgetNano: null,
  spentNano: 0n,
  heldNano: 0n,
};
const noSpend = { totalNano: 0n, todayNano: 0n, requests: 0, lastUsedAt: null };
const limitedKey = { ...key, rpmLimit: 30, dailyCapNano: 2_000_000_000n, budgetNano: 9_000_000_000n, spentNano: 1n, heldNano: 2n };
const entry = {
  id: 7n,
  kind: "debit",
  amountNano: -1500n,
  requestId: "req_1",
  idempotencyKey: null,
  day,
  model: "openai/gpt-4.1",
  accessPath: "openai",
  inputTokens: 10,
  outputTokens: 20,
  costParts: { input: { units: 10, nano: "500" }, output: { units: 20, nano: "1000" } },
  keyId: "k1",
  createdAt: at,
};
const hold = {
  requestId: "req_1",
  amountNano: 2000n,
  day,
  status: "settled",
  model: null,
  accessPath: null,
  createdAt: at,
  expiresAt: at,
  closedAt: at,
  debitedNano: 1500n,
  unbilledNano: null,
  refusal: null,
  lease: true,
};

describe("admin response schemas", () => {
  it.each([
    ["a project without limits", ref("Project"), presentProject(project)],
    ["a project with limits", ref("Project"), presentProject({ ...project, rpmLimit: 60, dailyCapNano: 5_000_000_000n })],
    ["a key", ref("Key"), presentKey(key, noSpend, at)],
    ["a revoked, named key", ref("Key"), presentKey({ ...key, name: "ci", revokedAt: at }, noSpend, at)],
    [
      "a key with limits, spend and an expiry",
      ref("Key"),
      presentKey({ ...limitedKey, expiresAt: at }, { totalNano: 5n, todayNano: 1n, requests: 2, lastUsedAt: at }, at),
    ],
    ["a rotated key", ref("Key"), presentKey({ ...key, replacedBy: "k2", expiresAt: at }, noSpend, at, limitedKey)],
    ["an issued key", ref("IssuedKey"), { ...presentKey(key, noSpend, at), key: "sk_p1_secret" }],
    [
      "a rotation",
      ref("RotatedKey"),
      { key: { ...presentKey(limitedKey, noSpend, at), key: "sk_p1_secret" }, previous: presentKey(key, noSpend, at, limitedKey) },
    ],
    ["a list of projects", listOf("Project"), { data: [presentProject(project)] }],
    [
      "a balance",
      ref("Balance"),
      presentBalance({
        projectId: "p1",
        balanceNano: 10n,
        heldNano: 2n,
        availableNano: 8n,
        dailyCapNano: 100n,
        spentTodayNano: 1n,
      }),
    ],
    [
      "a top-up",
      ref("TopUp"),
      {
        entry_id: "1",
        amount: { nano: "10" },
        replayed: false,
        balance: presentBalance({
          projectId: "p1",
          balanceNano: 10n,
          heldNano: 0n,
          availableNano: 10n,
          dailyCapNano: null,
          spentTodayNano: 0n,
        }),
      },
    ],
    ["a debit with its split", listOf("LedgerEntry"), { data: [presentLedgerEntry(entry)] }],
    [
      "a credit",
      listOf("LedgerEntry"),
      {
        data: [
          presentLedgerEntry({
            ...entry,
            kind: "credit",
            requestId: null,
            idempotencyKey: "t1",
            model: null,
            accessPath: null,
            inputTokens: null,
            outputTokens: null,
            costParts: null,
          }),
        ],
      },
    ],
    ["a lease", listOf("Hold"), { data: [presentHold(hold)] }],
    [
      "an active hold",
      listOf("Hold"),
      {
        data: [presentHold({ ...hold, status: "active", closedAt: null, debitedNano: null, unbilledNano: 3n, refusal: "x", lease: false })],
      },
    ],
    [
      "usage",
      ref("Usage"),
      presentUsage({
        from: "2026-11-01",
        to: "2026-11-25",
        rows: [
          {
            day: "2026-11-25",
            model: "openai/gpt-4.1",
            requests: 2,
            inputTokens: 10,
            outputTokens: 20,
            costNano: 1500n,
            components: { input: { units: 10, costNano: 500n } },
          },
        ],
      }),
    ],
  ])("serializes %s unchanged", async (_name, schema, answer) => {
    expect(await served(schema, answer)).toEqual(answer);
  });
});
