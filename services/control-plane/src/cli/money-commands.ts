// gatewayctl's money commands: `balance topup|show`, and the listings of what a project spent and
// holds: `ledger`, `holds`, `usage` (docs/money.md).
import { apiQuery, call } from "./admin-connection";
import { type Command, need } from "./cli-command";
import { dataOf, listing, money, type Row } from "./output-format";
import { table } from "./table";

/** A usage row's cost by component, indented on the next line: "input 1,000 $0.0004 · cached_input 9,000 $0.0009 ...". */
function costSplit(split: unknown): string {
  const parts = Object.entries((split ?? {}) as Record<string, { units: number; cost: unknown }>);
  if (parts.length === 0) return "";
  return `\n\t${parts.map(([component, part]) => `${component} ${part.units.toLocaleString("en-US")} ${money(part.cost)}`).join(" · ")}`;
}

export const MONEY_COMMANDS: Record<string, Command> = {
  "balance topup": {
    run: ({ target, project, values, command }) =>
      call(target(), "POST", `/admin/projects/${project()}/topups`, {
        amount_usd: need(values.amount, "amount", command),
        idempotency_key: need(values["idempotency-key"], "idempotency-key", command),
      }),
    human: (result) => {
      const topup = result as { replayed: boolean; balance: Row };
      return `${topup.replayed ? "already applied (same idempotency key); " : ""}balance ${money(topup.balance.balance)}, available ${money(topup.balance.available)}`;
    },
  },
  "balance show": {
    run: ({ target, project }) => call(target(), "GET", `/admin/projects/${project()}/balance`),
    human: (result) => {
      const balance = result as Row;
      return `balance ${money(balance.balance)}\nheld ${money(balance.held)}\navailable ${money(balance.available)}\ndaily cap ${money(balance.daily_cap)}\nspent today ${money(balance.spent_today)}`;
    },
  },
  ledger: {
    run: ({ target, project, values }) => {
      const query = apiQuery({
        limit: values.limit,
        kind: values.kind,
        request_id: values.request,
        key_id: values.key,
        from: values.from,
        to: values.to,
        before: values.before,
      });
      return call(target(), "GET", `/admin/projects/${project()}/ledger${query}`);
    },
    human: (result) =>
      listing(
        "no entries",
        ["ENTRY", "CREATED", "KIND", "AMOUNT", "MODEL", "REQUEST OR IDEMPOTENCY KEY"],
        dataOf(result).map((entry) => [
          String(entry.id),
          String(entry.created_at),
          String(entry.kind),
          money(entry.amount),
          String(entry.model ?? ""),
          String(entry.request_id ?? entry.idempotency_key ?? ""),
        ]),
      ),
  },
  holds: {
    run: ({ target, project, values }) => {
      const query = apiQuery({
        status: values.status ?? "active",
        request_id: values.request,
        limit: values.limit,
        from: values.from,
        to: values.to,
        before: values.before,
      });
      return call(target(), "GET", `/admin/projects/${project()}/holds${query}`);
    },
    human: (result) =>
      listing(
        "no holds",
        ["REQUEST", "STATUS", "AMOUNT", "MODEL", "PLACED", "EXPIRES"],
        dataOf(result).map((hold) => [
          String(hold.request_id),
          String(hold.status),
          money(hold.amount),
          String(hold.model ?? ""),
          String(hold.created_at),
          String(hold.expires_at),
        ]),
      ),
  },
  usage: {
    run: ({ target, project, key, values }) => {
      const query = new URLSearchParams({ ...(values.from ? { from: values.from } : {}), ...(values.to ? { to: values.to } : {}) });
      // One key's usage with --key, else the project's.
      const scope = values.key ? `/admin/keys/${key()}` : `/admin/projects/${project()}`;
      return call(target(), "GET", `${scope}/usage${query.size ? `?${query}` : ""}`);
    },
    human: (result) => {
      const rows = dataOf(result);
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
    },
  },
};
