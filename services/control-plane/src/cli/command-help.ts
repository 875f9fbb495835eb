// gatewayctl's commands as the help shows them: the overview (`gatewayctl --help`) and each
// command's own page (`gatewayctl <command> --help`), from one table.
export interface CommandHelp {
  /** "keys issue", "ledger". */
  name: string;
  /** The options after the name, as typed. */
  synopsis: string;
  /** One line for the overview. */
  summary: string;
  /** More for the command's own page. */
  detail?: string;
}

export const COMMANDS: readonly CommandHelp[] = [
  { name: "projects create", synopsis: "--name NAME [--id ID]", summary: "create a project" },
  { name: "projects list", synopsis: "", summary: "list projects" },
  { name: "keys issue", synopsis: "--project ID [--name NAME]", summary: "issue a key (the key is printed once)" },
  { name: "keys list", synopsis: "--project ID", summary: "list a project's keys" },
  { name: "keys revoke", synopsis: "--key KEY_ID", summary: "revoke a key" },
  {
    name: "balance topup",
    synopsis: "--project ID --amount USD --idempotency-key K",
    summary: "add credit (replays with the same key add nothing)",
    detail: "The same idempotency key with another amount is refused (409 conflict) and credits nothing.",
  },
  { name: "balance show", synopsis: "--project ID", summary: "balance, held and available amounts" },
  { name: "ledger", synopsis: "--project ID [--limit N]", summary: "latest ledger entries" },
  { name: "holds", synopsis: "--project ID [--status S]", summary: "holds (active by default; settled, released, expired, refused)" },
  {
    name: "usage",
    synopsis: "--project ID [--from DAY] [--to DAY]",
    summary: "requests, tokens and cost per UTC day and model (default: this month)",
    detail: "Each row is followed by its cost split by component (input, cached_input, cache writes, output, reasoning, images).",
  },
  {
    name: "limits set",
    synopsis: "--project ID [--rpm N|default] [--daily-cap USD|none]",
    summary: "requests per minute (0 = none), daily spend cap",
  },
  { name: "catalogue load", synopsis: "--file PATH", summary: "replace the catalogue with a catalogue file" },
  { name: "catalogue show", synopsis: "", summary: "the catalogue as the data planes receive it" },
  {
    name: "prices check",
    synopsis: "--sources DIR [--file CATALOGUE.json]",
    summary: "list the prices that disagree (beyond 0.5%) with the public price lists in DIR",
    detail: [
      "DIR is laid out like the shared price lists: litellm/, models.dev/, openrouter/. Every component of every",
      "path is checked against its own provider's figures (OpenRouter's list for openrouter paths, models.dev and",
      "litellm for direct ones). Checks the loaded catalogue (admin API), or with --file a catalogue file.",
      "Exit status 1 when any price disagrees.",
    ].join("\n"),
  },
];

const CONNECTION =
  "options: --url URL --token TOKEN (admin API; else GATEWAY_ADMIN_URL and GATEWAY_ADMIN_TOKEN, else the file `pnpm start` writes), --json (machine-readable output), --help";

/** The overview: every command with its synopsis and summary. */
export function overview(): string {
  const width = Math.max(...COMMANDS.map((command) => `${command.name} ${command.synopsis}`.trimEnd().length));
  const lines = COMMANDS.map((command) => `  ${`${command.name} ${command.synopsis}`.trimEnd().padEnd(width)}  ${command.summary}`);
  return [
    "usage: gatewayctl <command> [options] [--json]",
    "",
    ...lines,
    "",
    CONNECTION,
    "`gatewayctl <command> --help` shows one command.",
  ].join("\n");
}

/** One command's page, or undefined for a name that is not a command. */
export function commandHelp(name: string): string | undefined {
  const command = COMMANDS.find((candidate) => candidate.name === name);
  if (!command) return undefined;
  return [
    `usage: gatewayctl ${command.name} ${command.synopsis}`.trimEnd(),
    "",
    command.summary,
    ...(command.detail ? ["", command.detail] : []),
    "",
    CONNECTION,
  ].join("\n");
}
