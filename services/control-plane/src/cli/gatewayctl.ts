// gatewayctl: the operators' command line over the admin HTTP API.
//
//   pnpm gatewayctl <command> [options] [--json]
//
// Connection: GATEWAY_ADMIN_URL / GATEWAY_ADMIN_TOKEN (the token belongs there, not in `ps`),
// else the file `pnpm start` writes (local-gateway-file.ts); --url / --token override them.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import type { Catalogue__Output } from "@gateway/proto";
import { type ErrorBody, GatewayError } from "@gateway/proto/errors";
import type { CatalogueFile } from "../catalogue/catalogue-file";
import { normalizeCatalogue } from "../catalogue/normalize-catalogue";
import { readPriceLists } from "../catalogue/price-lists";
import { commandHelp, overview } from "./command-help";
import { LOCAL_GATEWAY_FILE, localGatewayDir } from "./local-gateway-file";
import { checkPrices, formatCheck, type PricesCheck, pathsOfFile, pathsOfSnapshot } from "./prices-check";
import { auditText, healthText } from "./operations-output";
import { table } from "./table";

class CliError extends Error {}

interface Connection {
  url: string;
  token: string;
}

function connection(values: { url?: string; token?: string }): Connection {
  const localFile = path.join(localGatewayDir(process.env), LOCAL_GATEWAY_FILE);
  const local = existsSync(localFile) ? (JSON.parse(readFileSync(localFile, "utf8")) as { adminUrl?: string; adminToken?: string }) : {};
  const url = values.url ?? process.env.GATEWAY_ADMIN_URL ?? local.adminUrl;
  const token = values.token ?? process.env.GATEWAY_ADMIN_TOKEN ?? local.adminToken;
  if (!url || !token)
    throw new CliError("no admin API: set GATEWAY_ADMIN_URL and GATEWAY_ADMIN_TOKEN, or run `pnpm start` first");
  return { url: url.replace(/\/+$/, ""), token };
}

async function call(target: Connection, method: string, route: string, body?: unknown): Promise<unknown> {
  let response: Response;
  try {
    response = await fetch(`${target.url}${route}`, {
      method,
      headers: { authorization: `Bearer ${target.token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw new CliError(`cannot reach the admin API at ${target.url}`);
  }
  const text = await response.text();
  const parsed: unknown = text ? JSON.parse(text) : {};
  if (!response.ok) {
    // The admin API's errors are `{"error":{"type","code","message"}}` (docs/errors.md); a refused
    // catalogue file's also lists its problems, one a line under the message.
    const error = (parsed as Partial<ErrorBody>).error as
      | (ErrorBody["error"] & { problems?: { pointer: string; message: string }[] })
      | undefined;
    const problems = (error?.problems ?? []).map((problem) => `\n  ${problem.pointer || "/"}: ${problem.message}`);
    throw new CliError(`${response.status} ${error?.code ?? "error"}: ${error?.message ?? text}${problems.join("")}`);
  }
  return parsed;
}

/** The flags given, as the admin API names its query parameters: "?kind=debit&limit=5", or "" for none. */
function apiQuery(parameters: Record<string, string | undefined>): string {
  const query = new URLSearchParams(Object.entries(parameters).filter((entry): entry is [string, string] => entry[1] !== undefined));
  return query.size ? `?${query}` : "";
}

function need(value: string | undefined, flag: string, command: string): string {
  if (!value) throw new CliError(`--${flag} is required\n\n${commandHelp(command) ?? overview()}`);
  return value;
}

type Row = Record<string, unknown>;
const money = (value: unknown) => (value && typeof value === "object" ? `$${(value as { usd: string }).usd}` : "none");

/** A usage row's cost by component, indented on the next line: "input 1,000 $0.0004 · cached_input 9,000 $0.0009 ...". */
function costSplit(split: unknown): string {
  const parts = Object.entries((split ?? {}) as Record<string, { units: number; cost: unknown }>);
  if (parts.length === 0) return "";
  return `\n\t${parts.map(([component, part]) => `${component} ${part.units.toLocaleString("en-US")} ${money(part.cost)}`).join(" · ")}`;
}

/** A listing as a table with its header row, or `none` when empty. */
function listing(none: string, headers: string[], rows: string[][]): string {
  return rows.length === 0 ? none : table(headers, rows);
}

const keyStatus = (key: Row) =>
  key.status === "active" && key.expires_at
    ? `active until ${key.expires_at}`
    : key.status === "revoked"
      ? `revoked ${key.revoked_at}`
      : String(key.status);

/** A key's own limits, one line. */
const keyTerms = (key: Row) =>
  `rpm ${key.rpm_limit ?? "project's"}, daily cap ${money(key.daily_cap)}, budget ${money(key.budget)}` +
  (key.budget ? ` (${money(key.budget_left)} left)` : "") +
  (key.replaced_by ? `, rotated: limits are ${key.replaced_by}'s` : "");

const keySpend = (key: Row) => {
  const spend = key.spend as { total: unknown; today: unknown; requests: number };
  return `spent ${money(spend.total)} in ${spend.requests} requests, ${money(spend.today)} today`;
};

/** A project's keys with their limits and spend. */
function keyTable(keys: Row[]): string {
  return listing(
    "no keys",
    ["KEY ID", "HINT", "NAME", "STATUS", "RPM", "DAILY CAP", "BUDGET LEFT", "SPENT", "TODAY"],
    keys.map((key) => {
      const spend = key.spend as { total: unknown; today: unknown };
      return [
        String(key.id),
        String(key.hint),
        String(key.name ?? ""),
        keyStatus(key),
        String(key.rpm_limit ?? "-"),
        key.daily_cap ? money(key.daily_cap) : "-",
        key.budget ? money(key.budget_left) : "-",
        money(spend.total),
        money(spend.today),
      ];
    }),
  );
}

/** The body of `keys issue` and `keys limits`: the flags given, as the admin API names them. */
function keyLimitsBody(values: Record<string, string | boolean | undefined>): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  const rpm = values.rpm as string | undefined;
  if (rpm !== undefined) {
    if (rpm === "none") body.rpm_limit = null;
    else if (/^[1-9]\d*$/.test(rpm)) body.rpm_limit = Number(rpm);
    else throw new CliError("--rpm takes a whole number above 0, or 'none'");
  }
  const usd = (flag: string, field: string) => {
    const value = values[flag] as string | undefined;
    if (value !== undefined) body[field] = value === "none" ? null : value;
  };
  usd("daily-cap", "daily_cap_usd");
  usd("budget", "budget_usd");
  const expires = values.expires as string | undefined;
  if (expires !== undefined) {
    if (expires === "never") body.expires_at = null;
    else if (Number.isNaN(Date.parse(expires))) throw new CliError("--expires takes a date-time such as 2026-12-31T00:00:00Z, or 'never'");
    else body.expires_at = new Date(expires).toISOString();
  }
  if (values.name !== undefined) body.name = values.name;
  return body;
}

function human(command: string, result: unknown): string {
  const data = (result as { data?: Row[] }).data;
  switch (command) {
    case "projects create":
    case "limits set": {
      const project = result as Row;
      return `project ${project.id} (${project.name}): rpm ${project.rpm_limit ?? "default"}, daily cap ${money(project.daily_cap)}`;
    }
    case "projects list":
      return listing(
        "no projects",
        ["ID", "NAME", "RPM", "DAILY CAP"],
        (data ?? []).map((project) => [
          String(project.id),
          String(project.name),
          String(project.rpm_limit ?? "default"),
          money(project.daily_cap),
        ]),
      );
    case "keys issue": {
      const key = result as Row;
      return `${key.key}\n\nkey id ${key.id} for project ${key.project_id}. This is the only time the key is shown: store it now.\n${keyTerms(key)}`;
    }
    case "keys rotate": {
      const { key, previous } = result as { key: Row; previous: Row };
      return `${key.key}\n\nkey id ${key.id} replaces ${previous.id}, which works until ${previous.expires_at}. This is the only time the key is shown: store it now.\n${keyTerms(key)}`;
    }
    case "keys list":
      return keyTable(data ?? []);
    case "keys show":
    case "keys limits": {
      const key = result as Row;
      return `key ${key.id} (${key.name ?? "no name"}) of project ${key.project_id}: ${keyStatus(key)}\n${keyTerms(key)}\n${keySpend(key)}`;
    }
    case "keys revoke":
      return `key ${(result as Row).id} revoked`;
    case "projects show": {
      const { project, balance, keys } = result as { project: Row; balance: Row; keys: Row[] };
      return [
        `project ${project.id} (${project.name}): rpm ${project.rpm_limit ?? "default"}, daily cap ${money(project.daily_cap)}`,
        `balance ${money(balance.balance)}, held ${money(balance.held)}, available ${money(balance.available)}, spent today ${money(balance.spent_today)}`,
        "",
        keyTable(keys),
      ].join("\n");
    }
    case "balance topup": {
      const topup = result as { replayed: boolean; balance: Row };
      return `${topup.replayed ? "already applied (same idempotency key); " : ""}balance ${money(topup.balance.balance)}, available ${money(topup.balance.available)}`;
    }
    case "balance show": {
      const balance = result as Row;
      return `balance ${money(balance.balance)}\nheld ${money(balance.held)}\navailable ${money(balance.available)}\ndaily cap ${money(balance.daily_cap)}\nspent today ${money(balance.spent_today)}`;
    }
    case "ledger":
      return listing(
        "no entries",
        ["ENTRY", "CREATED", "KIND", "AMOUNT", "MODEL", "REQUEST OR IDEMPOTENCY KEY"],
        (data ?? []).map((entry) => [
          String(entry.id),
          String(entry.created_at),
          String(entry.kind),
          money(entry.amount),
          String(entry.model ?? ""),
          String(entry.request_id ?? entry.idempotency_key ?? ""),
        ]),
      );
    case "health":
      return healthText(result);
    case "audit":
      return auditText(result);
    case "holds":
      return listing(
        "no holds",
        ["REQUEST", "STATUS", "AMOUNT", "MODEL", "PLACED", "EXPIRES"],
        (data ?? []).map((hold) => [
          String(hold.request_id),
          String(hold.status),
          money(hold.amount),
          String(hold.model ?? ""),
          String(hold.created_at),
          String(hold.expires_at),
        ]),
      );
    case "usage": {
      const rows = data ?? [];
      if (rows.length === 0) return "no usage";
      // One table row per day and model; its cost by component on the line below it.
      const lines = table(
        ["DAY", "MODEL", "REQUESTS", "INPUT", "OUTPUT", "COST"],
        rows.map((row) => [
          String(row.day),
          String(row.model),
          String(row.requests),
          String(row.input_tokens),
          String(row.output_tokens),
          money(row.cost),
        ]),
      ).split("\n");
      const total = (result as Row).total as Row;
      return [
        lines[0],
        ...rows.map((row, index) => `${lines[index + 1]}${costSplit(row.cost_by_component)}`),
        `total: ${total.requests} request${total.requests === 1 ? "" : "s"}, ${total.input_tokens} input and ${total.output_tokens} output tokens, ${money(total.cost)}`,
      ].join("\n");
    }
    case "catalogue load": {
      const loaded = result as Row;
      if (loaded.dry_run) return `valid, nothing loaded: it would give ${loaded.models} models (${loaded.curated} curated)`;
      return `catalogue revision ${loaded.revision}: ${loaded.models} models (${loaded.curated} curated)`;
    }
    case "prices check":
      return formatCheck(result as PricesCheck);
    default:
      return JSON.stringify(result, null, 2);
  }
}

function readJsonFile(file: string, shown: string): unknown {
  try {
    return JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    throw new CliError(`cannot read ${shown}: ${(error as Error).message}`);
  }
}

/** A catalogue file the gateway would load (its prices readable): the check compares only what could be billed. */
function validCatalogue(document: unknown, shown: string): CatalogueFile {
  try {
    normalizeCatalogue(document as CatalogueFile);
    return document as CatalogueFile;
  } catch (error) {
    if (error instanceof GatewayError || error instanceof TypeError)
      throw new CliError(`${shown} is not a catalogue file: ${error.message}`);
    throw error;
  }
}

function parseOptions(argv: string[]) {
  return parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      json: { type: "boolean" },
      url: { type: "string" },
      token: { type: "string" },
      name: { type: "string" },
      id: { type: "string" },
      project: { type: "string" },
      key: { type: "string" },
      amount: { type: "string" },
      "idempotency-key": { type: "string" },
      rpm: { type: "string" },
      "daily-cap": { type: "string" },
      budget: { type: "string" },
      kind: { type: "string" },
      request: { type: "string" },
      before: { type: "string" },
      expires: { type: "string" },
      grace: { type: "string" },
      file: { type: "string" },
      "dry-run": { type: "boolean" },
      sources: { type: "string" },
      limit: { type: "string" },
      status: { type: "string" },
      from: { type: "string" },
      to: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
}

/** The command line parsed; a flag parseArgs refuses is the operator's mistake, said in one line. */
function parse(argv: string[]) {
  try {
    return parseOptions(argv);
  } catch (error) {
    if (error instanceof TypeError) throw new CliError(error.message);
    throw error;
  }
}

async function run(argv: string[]): Promise<void> {
  const { values, positionals } = parse(argv);
  const singleWord = ["ledger", "holds", "usage", "health", "audit"].includes(positionals[0]!);
  const command = positionals.slice(0, singleWord ? 1 : 2).join(" ");
  if (values.help || positionals.length === 0) {
    console.log((positionals.length > 0 && commandHelp(command)) || overview());
    return;
  }
  const fromCwd = (file: string) => path.resolve(process.env.INIT_CWD ?? process.cwd(), file);
  const target = () => connection(values);
  const project = () => encodeURIComponent(need(values.project, "project", command));
  const key = () => encodeURIComponent(need(values.key, "key", command));
  let result: unknown;
  switch (command) {
    case "projects create":
      result = await call(target(), "POST", "/admin/projects", {
        name: need(values.name, "name", command),
        ...(values.id ? { id: values.id } : {}),
      });
      break;
    case "projects list":
      result = await call(target(), "GET", "/admin/projects");
      break;
    case "keys issue":
      result = await call(target(), "POST", `/admin/projects/${project()}/keys`, keyLimitsBody(values));
      break;
    case "keys show":
      result = await call(target(), "GET", `/admin/keys/${key()}`);
      break;
    case "keys limits": {
      const body = keyLimitsBody(values);
      if (Object.keys(body).length === 0) throw new CliError(`keys limits needs at least one of its options\n\n${commandHelp(command)}`);
      result = await call(target(), "PATCH", `/admin/keys/${key()}`, body);
      break;
    }
    case "keys rotate": {
      const grace = values.grace === undefined ? undefined : Number(values.grace);
      if (grace !== undefined && !(Number.isInteger(grace) && grace >= 0)) throw new CliError("--grace takes whole seconds (0 or more)");
      result = await call(target(), "POST", `/admin/keys/${key()}/rotate`, grace === undefined ? {} : { grace_seconds: grace });
      break;
    }
    case "projects show": {
      const [shown, balance, keys] = await Promise.all([
        call(target(), "GET", `/admin/projects/${project()}`),
        call(target(), "GET", `/admin/projects/${project()}/balance`),
        call(target(), "GET", `/admin/projects/${project()}/keys`),
      ]);
      result = { project: shown, balance, keys: (keys as { data: Row[] }).data };
      break;
    }
    case "keys list":
      result = await call(target(), "GET", `/admin/projects/${project()}/keys`);
      break;
    case "keys revoke":
      result = await call(target(), "POST", `/admin/keys/${key()}/revoke`);
      break;
    case "balance topup":
      result = await call(target(), "POST", `/admin/projects/${project()}/topups`, {
        amount_usd: need(values.amount, "amount", command),
        idempotency_key: need(values["idempotency-key"], "idempotency-key", command),
      });
      break;
    case "balance show":
      result = await call(target(), "GET", `/admin/projects/${project()}/balance`);
      break;
    case "ledger": {
      const query = apiQuery({
        limit: values.limit,
        kind: values.kind,
        request_id: values.request,
        key_id: values.key,
        from: values.from,
        to: values.to,
        before: values.before,
      });
      result = await call(target(), "GET", `/admin/projects/${project()}/ledger${query}`);
      break;
    }
    case "holds": {
      const query = apiQuery({
        status: values.status ?? "active",
        request_id: values.request,
        limit: values.limit,
        from: values.from,
        to: values.to,
        before: values.before,
      });
      result = await call(target(), "GET", `/admin/projects/${project()}/holds${query}`);
      break;
    }
    case "health":
      result = await call(target(), "GET", "/admin/health");
      break;
    case "audit":
      result = await call(
        target(),
        "GET",
        `/admin/audit-log${apiQuery({ kind: values.kind, limit: values.limit, before: values.before })}`,
      );
      break;
    case "usage": {
      const query = new URLSearchParams({ ...(values.from ? { from: values.from } : {}), ...(values.to ? { to: values.to } : {}) });
      // One key's usage with --key, else the project's.
      const scope = values.key ? `/admin/keys/${key()}` : `/admin/projects/${project()}`;
      result = await call(target(), "GET", `${scope}/usage${query.size ? `?${query}` : ""}`);
      break;
    }
    case "limits set": {
      const body: Record<string, unknown> = {};
      if (values.rpm !== undefined) {
        if (values.rpm === "default") body.rpm_limit = null;
        else if (/^\d+$/.test(values.rpm)) body.rpm_limit = Number(values.rpm);
        else throw new CliError("--rpm takes a whole number (0 = no limit) or 'default'");
      }
      if (values["daily-cap"] !== undefined) body.daily_cap_usd = values["daily-cap"] === "none" ? null : values["daily-cap"];
      if (Object.keys(body).length === 0) throw new CliError("limits set needs --rpm and/or --daily-cap");
      result = await call(target(), "PATCH", `/admin/projects/${project()}/limits`, body);
      break;
    }
    case "catalogue load": {
      const file = need(values.file, "file", command);
      result = await call(
        target(),
        "PUT",
        `/admin/catalogue?source=${encodeURIComponent(path.basename(file))}${values["dry-run"] ? "&dry_run=true" : ""}`,
        readJsonFile(fromCwd(file), file),
      );
      break;
    }
    case "catalogue show":
      result = await call(target(), "GET", "/admin/catalogue");
      break;
    case "prices check": {
      const sources = need(values.sources, "sources", command);
      let lists: ReturnType<typeof readPriceLists>;
      try {
        lists = readPriceLists(fromCwd(sources));
      } catch (error) {
        throw new CliError(`cannot read the price lists in ${sources}: ${(error as Error).message}`);
      }
      const paths = values.file
        ? pathsOfFile(validCatalogue(readJsonFile(fromCwd(values.file), values.file), values.file))
        : pathsOfSnapshot((await call(target(), "GET", "/admin/catalogue")) as Catalogue__Output);
      const check = checkPrices(paths, lists);
      if (check.disagreements.length > 0) process.exitCode = 1;
      result = check;
      break;
    }
    default:
      throw new CliError(`unknown command "${positionals.join(" ")}"\n\n${overview()}`);
  }
  console.log(values.json ? JSON.stringify(result, null, 2) : human(command, result));
}

try {
  await run(process.argv.slice(2));
} catch (error) {
  if (error instanceof CliError) {
    console.error(`gatewayctl: ${error.message}`);
    process.exit(1);
  }
  throw error;
}
