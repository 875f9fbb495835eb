// The operator console in a real browser (issue 21) against a real control plane on PostgreSQL, a data
// plane and the mock provider: sign in, create a project, top up by double click (credited once), set
// limits, issue a key and use it, revoke it (401 from the data plane within a second), and every figure
// the console shows for the project and the key equals the admin API's; usage by model and token type,
// the ledger and holds. Screenshots of each page at 1280 and 390 px: page-screenshots.ts.
import { randomBytes } from "node:crypto";
import type { Browser, Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type GatewayStack, startStack } from "../../data-plane/test/harness/gateway-stack";
import { launchChromium } from "./browser";
import { consoleBuildOfItsOwn, removeConsoleBuilds } from "./console-build";
import { pageScreenshots } from "./page-screenshots";

interface Money {
  nano: string;
  usd: string;
}

type Tokens = Record<"input" | "cached_input" | "cache_write" | "output" | "reasoning", number>;
interface UsageRow {
  day: string;
  model: string;
  requests: number;
  input_tokens: number;
  output_tokens: number;
  tokens: Tokens;
  cached_share: number;
  cost: Money;
}

type Totals = Omit<UsageRow, "day" | "model">;
interface Usage {
  from: string;
  to: string;
  data: UsageRow[];
  by_day: (Totals & { day: string })[];
  by_model: (Totals & { model: string })[];
  total: Totals;
}

const sumTokens = (rows: UsageRow[]): Tokens => {
  const sum: Tokens = { input: 0, cached_input: 0, cache_write: 0, output: 0, reasoning: 0 };
  for (const row of rows) for (const type of Object.keys(sum) as (keyof Tokens)[]) sum[type] += row.tokens[type];
  return sum;
};

describe("operator console", () => {
  let stack: GatewayStack;
  let browser: Browser;
  let page: Page;
  const projectId = `console${randomBytes(4).toString("hex")}`;

  beforeAll(async () => {
    const controlPlaneEnv = await consoleBuildOfItsOwn();
    [stack, browser] = await Promise.all([startStack({ backend: "postgresql", controlPlaneEnv }), launchChromium()]);
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.setDefaultTimeout(10_000);
  });

  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
    removeConsoleBuilds();
  });

  const api = async <T>(route: string): Promise<T> => {
    const answer = await stack.admin<T>("GET", route);
    expect(answer.status, route).toBe(200);
    return answer.json;
  };

  const screenshots = (name: string) => pageScreenshots(page, name);

  /** An amount as shown: the USD text and the exact nano-USD behind it. */
  async function shown(cell: Locator): Promise<Money> {
    const money = cell.locator(".money");
    return { usd: ((await money.textContent()) ?? "").replace(/^(-?)\$/, "$1"), nano: (await money.getAttribute("data-nano")) ?? "" };
  }
  /** A table row's tokens by type, as shown (digits only: the console groups thousands). */
  async function tokensShown(row: Locator): Promise<Tokens> {
    const tokens = {} as Tokens;
    for (const type of ["input", "cached_input", "cache_write", "output", "reasoning"] as const)
      tokens[type] = Number(((await row.locator(`[data-field="tokens_${type}"]`).textContent()) ?? "").replace(/,/g, ""));
    return tokens;
  }
  const projectRow = () => page.locator(`tr[data-project="${projectId}"]`);

  it("serves the console without the token; the admin API still needs it", async () => {
    const console = await fetch(`${stack.adminUrl}/console/`);
    expect(console.status).toBe(200);
    expect(console.headers.get("content-type")).toMatch(/^text\/html/);
    expect(console.headers.get("content-security-policy")).toContain("default-src 'self'");
    const deepLink = await fetch(`${stack.adminUrl}/console/keys?project=x`);
    expect(await deepLink.text()).toBe(await console.text());
    expect((await fetch(`${stack.adminUrl}/console/assets/missing.js`)).status).toBe(404);
    expect((await fetch(`${stack.adminUrl}/admin/projects`)).status).toBe(401);
  });

  it("signs in with the admin token, and says so in words when it is wrong", async () => {
    await page.goto(`${stack.adminUrl}/console`);
    await screenshots("sign-in");
    await page.getByLabel("Admin token").fill("not-the-token");
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect.poll(() => page.getByRole("alert").textContent()).toBe("a valid admin token is required");

    await page.getByLabel("Admin token").fill(stack.adminToken);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { name: "Projects" }).waitFor();
    expect(await page.evaluate("Object.keys(sessionStorage)")).toEqual(["gateway-console.session"]);
  });

  it("is driven from the keyboard: Tab reaches each page's link and Enter follows it", async () => {
    const pages = [
      ["Keys", "/console/keys"],
      ["Usage", "/console/usage"],
      ["Ledger", "/console/ledger"],
      ["Catalogue", "/console/catalogue"],
      ["Health", "/console/health"],
      ["Audit log", "/console/audit"],
      ["Projects", "/console/projects"],
    ] as const;
    for (const [title, address] of pages) {
      let focused = "";
      for (let presses = 0; presses < 80 && focused !== title; presses++) {
        await page.keyboard.press("Tab");
        focused = String(await page.evaluate("document.activeElement && document.activeElement.textContent"));
      }
      expect(focused, `Tab reaches ${title}`).toBe(title);
      await page.keyboard.press("Enter");
      await expect.poll(() => new URL(page.url()).pathname).toBe(address);
    }
    await page.getByRole("heading", { name: "Projects" }).waitFor();
  });

  it("creates a project and tops it up by double click: credited once", async () => {
    await page.getByLabel("Name").fill("Console trial");
    await page.getByLabel(/^Id/).fill(projectId);
    await page.getByRole("button", { name: "Create project" }).click();
    await projectRow().waitFor();

    await projectRow()
      .getByRole("button", { name: /^Top up/ })
      .click();
    const form = page.locator("section", { has: page.locator("#top-up-title") });
    await form.getByLabel("Amount (USD)").fill("5.00");
    const answers: number[] = [];
    page.on("response", (response) => {
      if (response.url().endsWith(`/admin/projects/${projectId}/topups`)) answers.push(response.status());
    });
    await form.getByRole("button", { name: "Top up", exact: true }).dblclick();
    await expect.poll(() => answers.length).toBe(2);
    // Both clicks reached the API with the form's one idempotency key: one credit (201), one replay (200).
    expect(answers.sort()).toEqual([200, 201]);
    const balance = await api<{ balance: Money }>(`/admin/projects/${projectId}/balance`);
    expect(balance.balance).toEqual({ nano: "5000000000", usd: "5.00" });
    await expect.poll(async () => (await shown(projectRow().locator('[data-field="balance"]'))).nano).toBe("5000000000");
  });

  it("sets the project's limits", async () => {
    await projectRow()
      .getByRole("button", { name: /^Limits/ })
      .click();
    await page.getByLabel(/^Requests per minute/).fill("120");
    await page.getByLabel(/^Daily cap, USD/).fill("3.50");
    await page.getByRole("button", { name: "Save limits" }).click();
    await expect.poll(() => projectRow().locator('[data-field="rpm_limit"]').textContent()).toBe("120");
    const project = await api<{ rpm_limit: number; daily_cap: Money }>(`/admin/projects/${projectId}`);
    expect(project).toMatchObject({ rpm_limit: 120, daily_cap: { nano: "3500000000", usd: "3.50" } });
  });

  let key: string;
  let keyId: string;

  it("issues a key, shown once, that works through the data plane", async () => {
    await projectRow().getByRole("link", { name: "0 keys" }).click();
    await page.getByRole("heading", { name: "Keys" }).waitFor();
    await page.getByText("has no keys yet").waitFor();
    await page.getByLabel(/^Name/).fill("console key");
    await page.getByRole("button", { name: "Issue key" }).click();
    key = await page.locator('[data-field="issued_key"]').inputValue();
    expect(key).toMatch(/^sk_/);
    const keys = await api<{ data: { id: string; hint: string }[] }>(`/admin/projects/${projectId}/keys`);
    expect(keys.data).toHaveLength(1);
    keyId = keys.data[0]!.id;
    expect(key.endsWith(keys.data[0]!.hint.replace(/^…|^\.\.\./, ""))).toBe(true);
    await page.getByRole("button", { name: "Done" }).click();

    const chat = await stack.post("/v1/chat/completions", key, { model: "auto", messages: [{ role: "user", content: "Hello" }] });
    expect(chat.status).toBe(200);
  });

  it("shows the key's spend as the admin API gives it", async () => {
    await page.reload();
    const row = page.locator(`tr[data-key="${keyId}"]`);
    await expect.poll(() => row.locator('[data-field="requests"]').textContent()).toBe("1");
    const apiKey = await api<{ spend: { total: Money; today: Money; requests: number }; last_used_at: string }>(`/admin/keys/${keyId}`);
    expect(await shown(row.locator('[data-field="spend_total"]'))).toEqual(apiKey.spend.total);
    expect(await row.locator('[data-field="last_used"] time').getAttribute("datetime")).toBe(apiKey.last_used_at);
    expect(await shown(row.locator('[data-field="spend_today"]'))).toEqual(apiKey.spend.today);
    expect(BigInt(apiKey.spend.total.nano)).toBeGreaterThan(0n);
    await screenshots("keys");
  });

  it("revokes the key after a confirmation; the data plane refuses it within a second", async () => {
    const row = page.locator(`tr[data-key="${keyId}"]`);
    await row.getByRole("button", { name: /^Revoke/ }).click();
    const dialog = page.getByRole("dialog", { name: "Revoke this key?" });
    await dialog.waitFor();
    await screenshots("revoke-confirm");
    const revoked = page.waitForResponse((response) => response.url().endsWith(`/admin/keys/${keyId}/revoke`));
    await dialog.getByRole("button", { name: "Revoke key" }).click();
    expect((await revoked).status()).toBe(200);
    const since = Date.now();
    let status = 0;
    while (Date.now() - since < 1000) {
      status = (await stack.post("/v1/chat/completions", key, { model: "auto", messages: [{ role: "user", content: "Hi" }] })).status;
      if (status === 401) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(status).toBe(401);
    await expect.poll(() => row.locator('[data-field="status"] .status').textContent()).toBe("revoked");
  });

  it("shows the usage per day, model and token type as the admin API gives it, with the ledger's totals", async () => {
    // A second model's request, its usage scripted on the mock with cache reads and reasoning.
    const first = await api<{ data: UsageRow[] }>(`/admin/projects/${projectId}/usage`);
    const model = first.data[0]!.model === "openai/gpt-4.1" ? "openai/gpt-4.1-mini" : "openai/gpt-4.1";
    const trafficKey = await stack.admin<{ key: string }>("POST", `/admin/projects/${projectId}/keys`, { name: "traffic key" });
    const tag = `console-usage-${randomBytes(4).toString("hex")}`;
    await stack.mockScript({ match: tag, usage: { prompt_tokens: 300, completion_tokens: 100, cached_tokens: 200, reasoning_tokens: 60 } });
    const content = `${tag} ${"x".repeat(300)}`; // as many bytes as the scripted prompt's tokens (the hold is sized from it)
    expect((await stack.post("/v1/chat/completions", trafficKey.json.key, { model, messages: [{ role: "user", content }] })).status).toBe(
      200,
    );

    await page.getByRole("link", { name: "Usage" }).click();
    await page.getByRole("heading", { name: "Usage" }).waitFor();
    const usage = await api<Usage>(`/admin/projects/${projectId}/usage`);
    expect(usage.data.map((row) => row.model).sort()).toEqual([first.data[0]!.model, model].sort());
    const scripted = usage.data.find((row) => row.model === model)!;
    expect(scripted.tokens).toEqual({ input: 100, cached_input: 200, cache_write: 0, output: 40, reasoning: 60 });

    // The rows, field by field.
    const rowOf = (row: UsageRow) => page.locator(`[data-table="rows"] tr[data-day="${row.day}"][data-model="${row.model}"]`);
    for (const row of usage.data) {
      await expect.poll(() => rowOf(row).locator('[data-field="requests"]').textContent()).toBe(String(row.requests));
      expect(await shown(rowOf(row).locator('[data-field="cost"]'))).toEqual(row.cost);
      expect(await tokensShown(rowOf(row))).toEqual(row.tokens);
    }
    // Per model and in all, as the API sums them, and equal to the ledger's debits: their count and sum.
    for (const totals of usage.by_model) {
      const modelRow = page.locator(`[data-table="models"] tr[data-model="${totals.model}"]`);
      expect(await modelRow.locator('[data-field="requests"]').textContent()).toBe(String(totals.requests));
      expect(await shown(modelRow.locator('[data-field="cost"]'))).toEqual(totals.cost);
      expect(await tokensShown(modelRow)).toEqual(totals.tokens);
      expect(await modelRow.locator('[data-field="cached_share"]').textContent()).toBe(`${(totals.cached_share * 100).toFixed(1)}%`);
    }
    // The scripted model's input: 200 of its 300 tokens from the cache.
    expect(usage.by_model.find((totals) => totals.model === model)!.cached_share).toBe(0.6667);
    expect(usage.by_model.find((totals) => totals.model === model)).toMatchObject({ tokens: scripted.tokens, cost: scripted.cost });
    const total = page.locator('[data-table="models"] tr[data-model="total"]');
    expect(await total.locator('[data-field="requests"]').textContent()).toBe(String(usage.total.requests));
    expect(await shown(total.locator('[data-field="cost"]'))).toEqual(usage.total.cost);
    expect(await tokensShown(total)).toEqual(usage.total.tokens);
    expect(usage.total.tokens).toEqual(sumTokens(usage.data));
    const debits = (await stack.ledger(projectId)).filter((entry) => entry.kind === "debit");
    expect(usage.total.requests).toBe(debits.length);
    expect(usage.total.cost.nano).toBe(String(debits.reduce((sum, entry) => sum - BigInt(entry.amount.nano), 0n)));

    // The charts: a spend segment per model with its exact amount; token segments by type with the day's totals.
    const spendTitles = await page.locator('[data-chart="spend-chart"] rect.bar title').allTextContents();
    expect(spendTitles.sort()).toEqual(usage.data.map((row) => `${row.day} · ${row.model}: $${row.cost.usd}`).sort());
    const tokenTitles = await page.locator('[data-chart="tokens-chart"] rect.bar title').allTextContents();
    const today = usage.by_day.find((day) => day.day === scripted.day)!;
    expect(tokenTitles).toContain(`${today.day} · Cached input: ${today.tokens.cached_input} tokens`);
    expect(tokenTitles).toContain(`${today.day} · Reasoning: ${today.tokens.reasoning} tokens`);

    // The download is the same rows: a header, then one line per day and model, with the exact nano-USD.
    const href = (await page.getByRole("link", { name: "Download CSV" }).getAttribute("href")) ?? "";
    const csv = decodeURIComponent(href.replace(/^data:text\/csv;charset=utf-8,/, ""))
      .trimEnd()
      .split("\n");
    expect(csv[0]).toBe(
      "day,model,requests,input_tokens,output_tokens,tokens_input,tokens_cached_input,tokens_cache_write,tokens_output,tokens_reasoning,cost_usd,cost_nano_usd",
    );
    expect(csv.slice(1)).toEqual(
      usage.data.map((row) =>
        [
          row.day,
          row.model,
          row.requests,
          row.input_tokens,
          row.output_tokens,
          ...Object.values(row.tokens),
          row.cost.usd,
          row.cost.nano,
        ].join(","),
      ),
    );
    await screenshots("usage");

    // One key's usage: the key that made the request shows the API's rows for it; a key without traffic shows none.
    const idle = await stack.admin<{ id: string }>("POST", `/admin/projects/${projectId}/keys`, { name: "idle key" });
    await page.reload();
    const keyUsage = await api<{ data: UsageRow[] }>(`/admin/keys/${keyId}/usage`);
    expect(keyUsage.data).toHaveLength(1);
    await page.getByLabel("Key").selectOption(keyId);
    await page.getByRole("button", { name: "Show" }).click();
    await expect.poll(() => page.locator('[data-table="rows"] tbody tr').count()).toBe(1);
    const keyRow = rowOf(keyUsage.data[0]!);
    expect(await keyRow.locator('[data-field="requests"]').textContent()).toBe(String(keyUsage.data[0]!.requests));
    expect(await shown(keyRow.locator('[data-field="cost"]'))).toEqual(keyUsage.data[0]!.cost);
    await page.getByLabel("Key").selectOption(idle.json.id);
    await page.getByRole("button", { name: "Show" }).click();
    await page.getByText(/^No requests from/).waitFor();
  });

  interface Entry {
    id: string;
    kind: string;
    amount: Money;
    request_id: string | null;
  }
  interface Hold {
    request_id: string;
    status: string;
    amount: Money;
    debited: Money | null;
  }
  /** The entries the page shows, in order: id, kind, amount, request. */
  const entriesShown = async () => {
    const rows = page.locator('[data-table="ledger"] tbody tr');
    const shownRows: { id: string; kind: string; amount: Money; request: string }[] = [];
    for (const row of await rows.all())
      shownRows.push({
        id: (await row.getAttribute("data-entry")) ?? "",
        kind: (await row.locator('[data-field="kind"]').textContent()) ?? "",
        amount: await shown(row.locator('[data-field="amount"]')),
        request: (await row.locator('[data-field="request"] a').count())
          ? ((await row.locator('[data-field="request"] a').textContent()) ?? "")
          : "",
      });
    return shownRows;
  };
  const entriesOf = (entries: Entry[]) =>
    entries.map((entry) => ({ id: entry.id, kind: entry.kind, amount: entry.amount, request: entry.request_id ?? "" }));

  it("shows the ledger and holds as the admin API gives them: filtered, paged, a request id linking to its entries and hold", async () => {
    await page.getByRole("link", { name: "Ledger" }).click();
    await page.getByRole("heading", { name: "Ledger and holds" }).waitFor();
    const ledger = await api<{ data: Entry[] }>(`/admin/projects/${projectId}/ledger?limit=25`);
    await expect.poll(entriesShown).toEqual(entriesOf(ledger.data));

    // By kind: the debits only.
    await page.getByLabel("Kind").selectOption("debit");
    await page.getByRole("button", { name: "Filter" }).click();
    const debits = await api<{ data: Entry[] }>(`/admin/projects/${projectId}/ledger?limit=25&kind=debit`);
    expect(debits.data.length).toBe(2);
    await expect.poll(entriesShown).toEqual(entriesOf(debits.data));
    expect(page.url()).toContain("kind=debit");

    // A request id links to its entries and its hold.
    const requestId = debits.data[0]!.request_id!;
    await page.locator('[data-table="ledger"]').getByRole("link", { name: requestId }).click();
    await expect.poll(() => page.url()).toContain(`request=${requestId}`);
    const requestEntries = await api<{ data: Entry[] }>(`/admin/projects/${projectId}/ledger?limit=26&request_id=${requestId}`);
    await expect.poll(entriesShown).toEqual(entriesOf(requestEntries.data));
    const [hold] = (await api<{ data: Hold[] }>(`/admin/projects/${projectId}/holds?request_id=${requestId}`)).data;
    expect(hold).toMatchObject({ request_id: requestId, status: "settled" });
    const holdRow = page.locator(`[data-table="holds"] tr[data-hold="${requestId}"]`);
    await expect.poll(() => holdRow.locator('[data-field="status"]').textContent()).toBe("settled");
    expect(await shown(holdRow.locator('[data-field="amount"]'))).toEqual(hold!.amount);
    expect(await shown(holdRow.locator('[data-field="debited"]'))).toEqual(hold!.debited);
    expect(hold!.debited).toEqual({
      nano: String(-BigInt(requestEntries.data[0]!.amount.nano)),
      usd: requestEntries.data[0]!.amount.usd.slice(1),
    });
    await screenshots("ledger-request");

    // Pages of 25, newest first: thirty top-ups make two pages, each the API's.
    for (let index = 0; index < 30; index++)
      expect(
        (await stack.admin("POST", `/admin/projects/${projectId}/topups`, { amount_usd: "0.01", idempotency_key: `page-${index}` })).status,
      ).toBe(201);
    await page.getByRole("link", { name: "Show every entry" }).click();
    const newest = await api<{ data: Entry[] }>(`/admin/projects/${projectId}/ledger?limit=25`);
    await expect.poll(entriesShown).toEqual(entriesOf(newest.data));
    await page.getByRole("button", { name: "Older entries" }).click();
    const older = await api<{ data: Entry[] }>(`/admin/projects/${projectId}/ledger?limit=25&before=${newest.data.at(-1)!.id}`);
    await expect.poll(entriesShown).toEqual(entriesOf(older.data));
    expect(await page.getByRole("button", { name: "Older entries" }).isDisabled()).toBe(true);
    await page.getByRole("button", { name: "Newer entries" }).click();
    await expect.poll(entriesShown).toEqual(entriesOf(newest.data));

    // Holds by status.
    await page.getByLabel("Status").selectOption("settled");
    const settled = await api<{ data: Hold[] }>(`/admin/projects/${projectId}/holds?status=settled&limit=25`);
    await expect
      .poll(async () =>
        page.locator('[data-table="holds"] tbody tr').evaluateAll((rows) => rows.map((row) => row.getAttribute("data-hold"))),
      )
      .toEqual(settled.data.map((h) => h.request_id));
    await screenshots("ledger");
  });

  it("shows every figure of the project as the admin API gives it", async () => {
    await page.getByRole("link", { name: "Projects" }).click();
    await projectRow().waitFor();
    const balance = await api<Record<"balance" | "held" | "available" | "spent_today" | "daily_cap", Money>>(
      `/admin/projects/${projectId}/balance`,
    );
    const project = await api<{ rpm_limit: number | null }>(`/admin/projects/${projectId}`);
    const keys = await api<{ data: unknown[] }>(`/admin/projects/${projectId}/keys`);
    for (const field of ["balance", "held", "available", "spent_today", "daily_cap"] as const)
      expect(await shown(projectRow().locator(`[data-field="${field}"]`)), field).toEqual(balance[field]);
    expect(await projectRow().locator('[data-field="rpm_limit"]').textContent()).toBe(String(project.rpm_limit));
    expect(await projectRow().locator('[data-field="keys"]').textContent()).toBe(
      `${keys.data.length} key${keys.data.length === 1 ? "" : "s"}`,
    );
    // The spend is real: the chat request's debit is today's spend and came off the balance.
    expect(BigInt(balance.spent_today.nano)).toBeGreaterThan(0n);
    await screenshots("projects");
  });
});
