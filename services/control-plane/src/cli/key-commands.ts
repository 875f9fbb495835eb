// gatewayctl's `keys` commands: issue, list, show, limits, rotate, revoke (docs/keys.md), and a
// project's keys as a table (`projects show` prints it too).
import { call } from "./admin-connection";
import type { Command } from "./cli-command";
import { CliError } from "./cli-error";
import { commandHelp } from "./command-help";
import { dataOf, listing, money, type Row } from "./output-format";

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
export function keyTable(keys: Row[]): string {
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

/** `keys show` and `keys limits`: the key, its terms and its spend. */
const keyShown = (result: unknown) => {
  const key = result as Row;
  return `key ${key.id} (${key.name ?? "no name"}) of project ${key.project_id}: ${keyStatus(key)}\n${keyTerms(key)}\n${keySpend(key)}`;
};

export const KEY_COMMANDS: Record<string, Command> = {
  "keys issue": {
    run: ({ target, project, values }) => call(target(), "POST", `/admin/projects/${project()}/keys`, keyLimitsBody(values)),
    human: (result) => {
      const key = result as Row;
      return `${key.key}\n\nkey id ${key.id} for project ${key.project_id}. This is the only time the key is shown: store it now.\n${keyTerms(key)}`;
    },
  },
  "keys show": {
    run: ({ target, key }) => call(target(), "GET", `/admin/keys/${key()}`),
    human: keyShown,
  },
  "keys limits": {
    run: async ({ target, key, values, command }) => {
      const body = keyLimitsBody(values);
      if (Object.keys(body).length === 0) throw new CliError(`keys limits needs at least one of its options\n\n${commandHelp(command)}`);
      return call(target(), "PATCH", `/admin/keys/${key()}`, body);
    },
    human: keyShown,
  },
  "keys rotate": {
    run: async ({ target, key, values }) => {
      const grace = values.grace === undefined ? undefined : Number(values.grace);
      if (grace !== undefined && !(Number.isInteger(grace) && grace >= 0)) throw new CliError("--grace takes whole seconds (0 or more)");
      return call(target(), "POST", `/admin/keys/${key()}/rotate`, grace === undefined ? {} : { grace_seconds: grace });
    },
    human: (result) => {
      const { key, previous } = result as { key: Row; previous: Row };
      return `${key.key}\n\nkey id ${key.id} replaces ${previous.id}, which works until ${previous.expires_at}. This is the only time the key is shown: store it now.\n${keyTerms(key)}`;
    },
  },
  "keys list": {
    run: ({ target, project }) => call(target(), "GET", `/admin/projects/${project()}/keys`),
    human: (result) => keyTable(dataOf(result)),
  },
  "keys revoke": {
    run: ({ target, key }) => call(target(), "POST", `/admin/keys/${key()}/revoke`),
    human: (result) => `key ${(result as Row).id} revoked`,
  },
};
