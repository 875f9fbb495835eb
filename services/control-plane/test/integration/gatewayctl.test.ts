// gatewayctl as operators run it (a real process over the admin API), against
// a running gateway: every command, with --json, and its effect on the data plane.
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bundleGatewayctl } from "../../../../deploy/build/bundle-gatewayctl";
import { repositoryRoot } from "../../../../deploy/local/service-process";
import { startStack, type GatewayStack } from "../../../data-plane/test/harness/gateway-stack";

const run = promisify(execFile);

describe("gatewayctl", () => {
  let stack: GatewayStack;
  /**
   * The commands run as the bundle operators install (pnpm build:gatewayctl): node starts it in a fraction of
   * the seconds node and tsx take to load the sources, some 30 times over. "refuses a wrong admin token" runs the sources.
   */
  let bundle: string;
  const bundleDir = mkdtempSync(path.join(os.tmpdir(), "gatewayctl-"));

  async function ctl(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    try {
      const { stdout, stderr } = await run(process.execPath, [bundle, ...args], {
        cwd: repositoryRoot,
        env: { ...process.env, GATEWAY_ADMIN_URL: stack.adminUrl, GATEWAY_ADMIN_TOKEN: stack.adminToken },
      });
      return { code: 0, stdout, stderr };
    } catch (error) {
      const failure = error as { code: number; stdout: string; stderr: string };
      return { code: failure.code, stdout: failure.stdout, stderr: failure.stderr };
    }
  }

  async function ctlJson<T = Record<string, unknown>>(...args: string[]): Promise<T> {
    const result = await ctl(...args, "--json");
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    return JSON.parse(result.stdout) as T;
  }

  const chat = (key: string) => stack.post("/v1/chat/completions", key, { model: "auto", messages: [{ role: "user", content: "hi" }] });

  beforeAll(async () => {
    [stack, bundle] = await Promise.all([startStack({ backend: "postgresql" }), bundleGatewayctl(path.join(bundleDir, "gatewayctl.mjs"))]);
  });

  afterAll(async () => {
    await stack?.stop();
    rmSync(bundleDir, { recursive: true, force: true });
  });

  it("runs a project's whole life: create, key, top-up (idempotent), balance, limits, list, revoke", async () => {
    const project = await ctlJson<{ id: string; name: string }>("projects", "create", "--name", "Acme", "--id", "acme");
    expect(project).toMatchObject({ id: "acme", name: "Acme", rpm_limit: null, daily_cap: null });

    const issued = await ctlJson<{ key: string; id: string; hint: string }>("keys", "issue", "--project", "acme", "--name", "ci");
    expect(issued.key).toMatch(/^sk_acme_[0-9A-Za-z]{43}$/);
    expect(issued.hint).toBe(`…${issued.key.slice(-4)}`);

    // No credit yet: the key works, the request is refused for money.
    expect((await chat(issued.key)).status).toBe(402);

    const first = await ctlJson<{ replayed: boolean }>(
      "balance",
      "topup",
      "--project",
      "acme",
      "--amount",
      "1.25",
      "--idempotency-key",
      "invoice-1",
    );
    const replay = await ctlJson<{ replayed: boolean; balance: { balance: { usd: string } } }>(
      "balance",
      "topup",
      "--project",
      "acme",
      "--amount",
      "1.25",
      "--idempotency-key",
      "invoice-1",
    );
    expect(first.replayed).toBe(false);
    expect(replay.replayed).toBe(true);
    expect(replay.balance.balance.usd).toBe("1.25");

    expect((await chat(issued.key)).status).toBe(200);
    const balance = await ctlJson<{ balance: { nano: string }; held: { nano: string } }>("balance", "show", "--project", "acme");
    expect(BigInt(balance.balance.nano)).toBeLessThan(1_250_000_000n);
    expect(balance.held.nano).toBe("0");

    const ledger = await ctlJson<{ data: { kind: string; amount: { nano: string } }[] }>("ledger", "--project", "acme");
    expect(ledger.data.map((entry) => entry.kind)).toEqual(["debit", "topup"]);

    const usage = await ctlJson<{
      data: { day: string; model: string; requests: number; input_tokens: number; output_tokens: number; cost: { nano: string } }[];
    }>("usage", "--project", "acme");
    expect(usage.data).toEqual([
      {
        day: new Date().toISOString().slice(0, 10),
        model: "openai/gpt-4.1-mini",
        requests: 1,
        input_tokens: 19,
        output_tokens: 10,
        tokens: { input: 19, cached_input: 0, cache_write: 0, output: 10, reasoning: 0 },
        cached_share: 0,
        cost: { nano: "23600", usd: "0.0000236" },
        cost_by_component: {
          input: { units: 19, cost: { nano: "7600", usd: "0.0000076" } },
          output: { units: 10, cost: { nano: "16000", usd: "0.000016" } },
        },
      },
    ]);
    // The table shows the split under its row, and the range's total.
    const usageTable = (await ctl("usage", "--project", "acme")).stdout;
    expect(usageTable).toContain("input 19 $0.0000076 · output 10 $0.000016");
    expect(usageTable).toContain("total: 1 request, 19 input and 10 output tokens, $0.0000236");
    expect(BigInt(ledger.data[0]!.amount.nano)).toBe(-23_600n);
    expect((await ctlJson<{ data: unknown[] }>("holds", "--project", "acme")).data).toEqual([]);
    const settled = await ctlJson<{ data: { status: string; debited: { nano: string } }[] }>(
      "holds",
      "--project",
      "acme",
      "--status",
      "settled",
    );
    expect(settled.data.map((hold) => [hold.status, hold.debited.nano])).toEqual([["settled", "23600"]]);
    const refused = await ctlJson<{ data: { refusal: string }[] }>("holds", "--project", "acme", "--status", "refused");
    expect(refused.data.map((hold) => hold.refusal)).toEqual(["insufficient_credits"]);

    const limited = await ctlJson("limits", "set", "--project", "acme", "--rpm", "120", "--daily-cap", "0.50");
    expect(limited).toMatchObject({ rpm_limit: 120, daily_cap: { usd: "0.50" } });
    const unlimited = await ctlJson("limits", "set", "--project", "acme", "--rpm", "default", "--daily-cap", "none");
    expect(unlimited).toMatchObject({ rpm_limit: null, daily_cap: null });

    const listed = await ctlJson<{ data: { id: string; revoked_at: string | null }[] }>("keys", "list", "--project", "acme");
    expect(listed.data.map((key) => key.id)).toEqual([issued.id]);
    expect(JSON.stringify(listed)).not.toContain(issued.key); // the key itself is never shown again

    const projects = await ctlJson<{ data: { id: string }[] }>("projects", "list");
    expect(projects.data.map((entry) => entry.id)).toContain("acme");

    await ctlJson("keys", "revoke", "--key", issued.id);
    const revoked = await ctlJson<{ data: { revoked_at: string | null }[] }>("keys", "list", "--project", "acme");
    expect(revoked.data[0]!.revoked_at).not.toBeNull();
    expect((await chat(issued.key)).status).toBe(401);
  });

  it("shows the gateway's health and the audit log of the project's life", { timeout: 120_000 }, async () => {
    // The data plane reports every few seconds: wait for its first report through the API, then ask gatewayctl.
    await expect
      .poll(async () => (await stack.admin<{ data_planes: unknown[] }>("GET", "/admin/health")).json.data_planes.length, {
        timeout: 20_000,
      })
      .toBe(1);
    const health = await ctlJson<{
      control_plane: { database: { reachable: boolean } };
      data_planes: { replica_id: string; status: string }[];
    }>("health");
    expect(health.control_plane.database.reachable).toBe(true);
    expect(health.data_planes.map((plane) => plane.status)).toEqual(["ok"]);
    const text = (await ctl("health")).stdout;
    expect(text).toMatch(/^control plane \S+ \(version dev, up \d+ s\): database reachable/);
    expect(text).toMatch(new RegExp(`^${health.data_planes[0]!.replica_id}\\s+ok\\s+connected, calls in_time\\s+local\\s`, "m"));

    // The whole life above, newest first, each done with the admin token; one top-up though it was sent twice.
    const audit = await ctlJson<{ data: { kind: string; actor: string; subject: { project_id: string | null } }[] }>(
      "audit",
      "--limit",
      "100",
    );
    const acme = audit.data.filter((event) => event.subject.project_id === "acme");
    expect(acme.map((event) => event.kind)).toEqual([
      "key_revoked",
      "project_changed",
      "project_changed",
      "topup",
      "key_issued",
      "project_created",
    ]);
    expect(new Set(acme.map((event) => event.actor))).toEqual(new Set(["admin token"]));
    const topups = await ctl("audit", "--kind", "topup");
    expect(topups.stdout.split("\n")[0]).toMatch(/^ID\s+TIME\s+KIND\s+BY\s+SUBJECT$/);
    expect(topups.stdout).toMatch(/topup\s+admin token\s+project acme, \$1\.25$/m);
  });

  it("prints readable text without --json and fails clearly on bad input", async () => {
    const shown = await ctl("projects", "create", "--name", "Plain", "--id", "plain");
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain("project plain (Plain)");

    const missing = await ctl("keys", "issue");
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("--project is required");

    const unknownProject = await ctl("balance", "show", "--project", "nosuch");
    expect(unknownProject.code).toBe(1);
    expect(unknownProject.stderr).toContain("404 not_found");

    const badAmount = await ctl("balance", "topup", "--project", "plain", "--amount", "ten", "--idempotency-key", "x");
    expect(badAmount.code).toBe(1);
    expect(badAmount.stderr).toContain("amount_usd must be a USD amount");
  });

  it("has a help page per command, and listings with a header row", async () => {
    const overview = await ctl("--help");
    expect(overview.code).toBe(0);
    for (const command of ["projects create", "keys issue", "balance topup", "usage", "prices check"])
      expect(overview.stdout).toMatch(new RegExp(`^  ${command} `, "m"));

    const page = await ctl("keys", "issue", "--help");
    expect(page.code).toBe(0);
    expect(page.stdout.split("\n")[0]).toBe(
      "usage: gatewayctl keys issue --project ID [--name NAME] [--rpm N] [--daily-cap USD] [--budget USD] [--expires TIME]",
    );
    expect(page.stdout).not.toContain("balance topup"); // that command's page only

    const missing = await ctl("balance", "topup", "--project", "nosuch");
    expect(missing.stderr).toContain(
      "--amount is required\n\nusage: gatewayctl balance topup --project ID --amount USD --idempotency-key K",
    );

    await ctlJson("projects", "create", "--name", "Tabled", "--id", "tabled");
    await ctlJson("keys", "issue", "--project", "tabled", "--name", "first");
    const keys = (await ctl("keys", "list", "--project", "tabled")).stdout.trimEnd().split("\n");
    expect(keys[0]).toMatch(/^KEY ID +HINT +NAME +STATUS +RPM +DAILY CAP +BUDGET LEFT +SPENT +TODAY$/);
    expect(keys).toHaveLength(2);
    expect(keys[1]).toMatch(/ first +active +- +- +- +\$0\.00 +\$0\.00$/);
    const projects = (await ctl("projects", "list")).stdout.split("\n");
    expect(projects[0]).toMatch(/^ID +NAME +RPM +DAILY CAP$/);
    expect(projects.some((line) => /^tabled +Tabled +default +none$/.test(line))).toBe(true);
  });

  it("sets a key's own limits, expiry and rotation, and shows usage and spend per key", { timeout: 180_000 }, async () => {
    await ctlJson("projects", "create", "--name", "Keyed", "--id", "keyed");
    await ctlJson("balance", "topup", "--project", "keyed", "--amount", "5", "--idempotency-key", "k1");
    const issued = await ctlJson<{ key: string; id: string }>(
      "keys",
      "issue",
      "--project",
      "keyed",
      "--name",
      "app",
      "--budget",
      "2.50",
      "--rpm",
      "30",
    );
    expect(issued).toMatchObject({ rpm_limit: 30, budget: { usd: "2.50" }, budget_left: { usd: "2.50" }, status: "active" });
    expect((await chat(issued.key)).status).toBe(200);

    const expires = new Date(Date.now() + 86_400_000).toISOString();
    const limited = await ctlJson("keys", "limits", "--key", issued.id, "--daily-cap", "1.00", "--rpm", "none", "--expires", expires);
    expect(limited).toMatchObject({ rpm_limit: null, daily_cap: { usd: "1.00" }, budget: { usd: "2.50" }, expires_at: expires });
    const shown = await ctl("keys", "show", "--key", issued.id);
    expect(shown.stdout).toContain(`key ${issued.id} (app) of project keyed: active until ${expires}`);
    expect(shown.stdout).toMatch(/spent \$0\.\d+ in 1 requests/);

    const rotated = await ctlJson<{ key: { key: string; id: string }; previous: { replaced_by: string; expires_at: string } }>(
      "keys",
      "rotate",
      "--key",
      issued.id,
      "--grace",
      "600",
    );
    expect(rotated.previous.replaced_by).toBe(rotated.key.id);
    expect(rotated.key).toMatchObject({ name: "app", daily_cap: { usd: "1.00" }, budget: { usd: "2.50" } });
    expect((await chat(rotated.key.key)).status).toBe(200);
    expect((await chat(issued.key)).status).toBe(200); // within its grace

    const usage = await ctlJson<{ data: { requests: number }[] }>("usage", "--key", rotated.key.id);
    expect(usage.data.reduce((sum, row) => sum + row.requests, 0)).toBe(1);
    const oldUsage = await ctlJson<{ data: { requests: number }[] }>("usage", "--key", issued.id);
    expect(oldUsage.data.reduce((sum, row) => sum + row.requests, 0)).toBe(2);
    // The ledger filtered by kind and key, and one request's hold.
    const debits = await ctlJson<{ data: { kind: string; key_id: string; request_id: string }[] }>(
      "ledger",
      "--project",
      "keyed",
      "--kind",
      "debit",
      "--key",
      issued.id,
    );
    expect(debits.data.map((entry) => [entry.kind, entry.key_id])).toEqual([
      ["debit", issued.id],
      ["debit", issued.id],
    ]);
    const hold = await ctlJson<{ data: { request_id: string; status: string }[] }>(
      "holds",
      "--project",
      "keyed",
      "--request",
      debits.data[0]!.request_id,
    );
    expect(hold.data).toEqual([expect.objectContaining({ request_id: debits.data[0]!.request_id, status: "settled" })]);

    // The project view lists its keys with their spend.
    const view = (await ctl("projects", "show", "--project", "keyed")).stdout.split("\n");
    expect(view[0]).toBe("project keyed (Keyed): rpm default, daily cap none");
    expect(view[3]).toMatch(/^KEY ID +HINT +NAME +STATUS +RPM +DAILY CAP +BUDGET LEFT +SPENT +TODAY$/);
    expect(view.find((line) => line.startsWith(issued.id))).toMatch(/ app +active until \S+ +- +\$1\.00 +\$2\.\d+ +\$0\.\d+ +\$0\.\d+$/);
    expect(view.find((line) => line.startsWith(rotated.key.id))).toMatch(
      / app +active until \S+ +- +\$1\.00 +\$2\.\d+ +\$0\.\d+ +\$0\.\d+$/,
    );

    const bad = await ctl("keys", "limits", "--key", rotated.key.id, "--rpm", "many");
    expect(bad).toMatchObject({ code: 1, stderr: expect.stringContaining("--rpm takes a whole number above 0") });
    const ambiguous = await ctl("keys", "limits", "--key", rotated.key.id, "--rpm", "-3");
    expect(ambiguous).toMatchObject({ code: 1, stderr: expect.stringMatching(/^gatewayctl: Option '--rpm' argument is ambiguous/) });
  });

  it("runs as one bundled file outside the checkout (pnpm build:gatewayctl)", async () => {
    const elsewhere = bundleDir; // the bundle every command here runs, built outside the checkout
    await ctlJson("projects", "create", "--name", "Bundled", "--id", "bundled");
    // Run from that directory: nothing of the repository (its node_modules, its .proto files) is reachable from there.
    const env = { ...process.env, GATEWAY_ADMIN_URL: stack.adminUrl, GATEWAY_ADMIN_TOKEN: stack.adminToken };
    const listed = await run(process.execPath, [bundle, "projects", "list", "--json"], { cwd: elsewhere, env });
    expect((JSON.parse(listed.stdout) as { data: { id: string }[] }).data.map((project) => project.id)).toContain("bundled");
    const help = await run(bundle, ["usage", "--help"], { cwd: elsewhere, env }); // executable itself (shebang)
    expect(help.stdout.split("\n")[0]).toBe("usage: gatewayctl usage --project ID | --key KEY_ID [--from DAY] [--to DAY]");
  });

  it("refuses a wrong admin token", async () => {
    const result = await run(process.execPath, ["--import", "tsx", "services/control-plane/src/cli/gatewayctl.ts", "projects", "list"], {
      cwd: repositoryRoot,
      env: { ...process.env, GATEWAY_ADMIN_URL: stack.adminUrl, GATEWAY_ADMIN_TOKEN: "wrong" },
    }).catch((error: { code: number; stderr: string }) => error);
    expect((result as { code: number }).code).toBe(1);
    expect((result as { stderr: string }).stderr).toContain("401 unauthorized");
  });

  it("loads a catalogue file; the data plane serves the new catalogue within a second", async () => {
    const project = await stack.createProject({ balanceUsd: "1.00" });
    const catalogue = JSON.parse(
      readFileSync(path.join(repositoryRoot, "services/control-plane/src/catalogue/default-catalogue.json"), "utf8"),
    ) as {
      models: { id: string; tiers?: string[]; paths: { upstream_model: string }[] }[];
      inventory: unknown[];
    };
    // Put gpt-4o-mini ($0.15/$0.60) in the balanced tier beside gpt-4.1-mini ($0.40/$1.60): the cheaper
    // one is chosen. And add inventory with an ambiguous bare name.
    const fourOMini = catalogue.models.find((model) => model.id === "openai/gpt-4o-mini")!;
    fourOMini.tiers = ["economy", "balanced"];
    catalogue.inventory = [
      {
        ...fourOMini,
        id: "azure/gpt-4o-mini",
        tiers: [],
        purposes: [] as string[],
        paths: [
          { provider: "openai", upstream_model: "gpt-4o-mini", price: { input_per_m: "0.15", output_per_m: "0.60", verified: false } },
        ],
      },
    ];
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), "catalogue-")), "catalogue.json");
    writeFileSync(file, JSON.stringify(catalogue));

    const loaded = await ctlJson<{ revision: string; models: number; curated: number }>("catalogue", "load", "--file", file);
    rmSync(path.dirname(file), { recursive: true, force: true });
    const loadedAt = Date.now();
    expect(loaded).toMatchObject({ models: catalogue.models.length + 1, curated: catalogue.models.length });

    let model = "";
    while (Date.now() - loadedAt < 5000) {
      const response = await stack.post("/v1/chat/completions", project.key, { model: "auto", messages: [{ role: "user", content: "x" }] });
      model = response.headers.get("x-service-model") ?? "";
      if (model === "openai/gpt-4o-mini") break;
    }
    expect(model).toBe("openai/gpt-4o-mini");
    expect(Date.now() - loadedAt).toBeLessThan(1000);

    const ambiguous = await stack.post("/v1/chat/completions", project.key, {
      model: "gpt-4o-mini",
      messages: [{ role: "user", content: "x" }],
    });
    expect(ambiguous.status).toBe(400);
    const body = (await ambiguous.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe("model_ambiguous");
    expect(body.error.message).toContain("openai/gpt-4o-mini");
    expect(body.error.message).toContain("azure/gpt-4o-mini");

    const all = await fetch(`${stack.url}/v1/models?all=1`, { headers: { authorization: `Bearer ${project.key}` } });
    const list = (await all.json()) as { data: { id: string; service: { tiers?: string[]; purposes?: string[]; pricing?: unknown } }[] };
    const last = list.data.at(-1)!;
    expect(last.id).toBe("azure/gpt-4o-mini");
    expect(last.service).toEqual({ tiers: [], purposes: [] }); // inventory, unverified price: no pricing
    const curatedOnly = (await (await fetch(`${stack.url}/v1/models`, { headers: { authorization: `Bearer ${project.key}` } })).json()) as {
      data: { id: string }[];
    };
    expect(curatedOnly.data.map((entry) => entry.id)).not.toContain("azure/gpt-4o-mini");
  });

  it("rejects an invalid catalogue file and keeps the current catalogue", async () => {
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), "catalogue-")), "bad.json");
    writeFileSync(
      file,
      JSON.stringify({
        version: 1,
        defaults: { tiers: { economy: "x/y", balanced: "x/y", quality: "x/y" }, embeddings: "x/e" },
        models: [],
      }),
    );
    const result = await ctl("catalogue", "load", "--file", file);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("400 invalid_request");
    // Every problem on its own line, where it is in the file.
    expect(result.stderr).toContain("\n  /models: no curated chat model with input and output prices is in the economy tier\n");
    expect(result.stderr).toContain(
      "\n  /defaults/embeddings: defaults.embeddings names x/e, which is not an embeddings model of the file",
    );
    const shown = await ctlJson<{ models: unknown[] }>("catalogue", "show");
    expect(shown.models.length).toBeGreaterThan(0);

    // --dry-run checks a valid file and loads nothing.
    const valid = path.join(path.dirname(file), "valid.json");
    writeFileSync(valid, readFileSync(path.join(repositoryRoot, "services/control-plane/src/catalogue/default-catalogue.json")));
    const checked = await ctl("catalogue", "load", "--file", valid, "--dry-run");
    rmSync(path.dirname(file), { recursive: true, force: true });
    expect(checked).toMatchObject({ code: 0, stderr: "" });
    expect(checked.stdout).toMatch(/^valid, nothing loaded: it would give \d+ models \(9 curated\)\n$/);
    expect((await ctlJson<{ revision: string }>("catalogue", "show")).revision).toBe((shown as unknown as { revision: string }).revision);
  });
});
