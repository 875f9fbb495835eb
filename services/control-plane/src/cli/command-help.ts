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

const KEY_LIMITS = [
  "A key's own limits are within its project's: --rpm requests per minute, --daily-cap USD per UTC day,",
  "--budget USD in total; --expires a date-time (ISO 8601) after which the key stops working.",
].join("\n");

export const COMMANDS: readonly CommandHelp[] = [
  { name: "projects create", synopsis: "--name NAME [--id ID]", summary: "create a project" },
  { name: "projects list", synopsis: "", summary: "list projects" },
  { name: "projects show", synopsis: "--project ID", summary: "a project's limits, balance, and its keys with their limits and spend" },
  {
    name: "keys issue",
    synopsis: "--project ID [--name NAME] [--rpm N] [--daily-cap USD] [--budget USD] [--expires TIME]",
    summary: "issue a key, with its own limits if given (the key is printed once)",
    detail: KEY_LIMITS,
  },
  { name: "keys list", synopsis: "--project ID", summary: "list a project's keys with their limits and spend" },
  { name: "keys show", synopsis: "--key KEY_ID", summary: "a key's status, limits and spend" },
  {
    name: "keys limits",
    synopsis: "--key KEY_ID [--rpm N|none] [--daily-cap USD|none] [--budget USD|none] [--expires TIME|never] [--name NAME]",
    summary: "set or clear a key's own limits and expiry",
    detail: `${KEY_LIMITS}\nA limit set on a key that has spent counts its spend so far (the ledger's).`,
  },
  {
    name: "keys rotate",
    synopsis: "--key KEY_ID [--grace SECONDS]",
    summary: "issue a successor (printed once); the old key works for the grace (default 86400 s), then is revoked",
    detail: "The successor has the key's name, limits and expiry; both keys spend from the successor's budget and caps.",
  },
  { name: "keys revoke", synopsis: "--key KEY_ID", summary: "revoke a key" },
  {
    name: "balance topup",
    synopsis: "--project ID --amount USD --idempotency-key K",
    summary: "add credit (replays with the same key add nothing)",
    detail: "The same idempotency key with another amount is refused (409 conflict) and credits nothing.",
  },
  { name: "balance show", synopsis: "--project ID", summary: "balance, held and available amounts" },
  {
    name: "ledger",
    synopsis:
      "--project ID [--limit N] [--kind topup|debit|adjustment] [--request ID] [--key KEY_ID] [--from DAY] [--to DAY] [--before ENTRY]",
    summary: "latest ledger entries, filtered if asked",
    detail: "--before takes the id of the oldest entry shown: the next page back.",
  },
  {
    name: "holds",
    synopsis: "--project ID [--status S] [--request ID] [--limit N] [--from DAY] [--to DAY] [--before REQUEST]",
    summary: "holds (active by default; settled, released, expired, refused), newest first, or one request's",
    detail: "--before takes the request id of the oldest hold shown: the next page back.",
  },
  {
    name: "usage",
    synopsis: "--project ID | --key KEY_ID [--from DAY] [--to DAY]",
    summary: "requests, tokens and cost per UTC day and model, of a project or one key (default: this month)",
    detail: "Each row is followed by its cost split by component (input, cached_input, cache writes, output, reasoning, images).",
  },
  {
    name: "limits set",
    synopsis: "--project ID [--rpm N|default] [--daily-cap USD|none]",
    summary: "requests per minute (0 = none), daily spend cap",
  },
  {
    name: "catalogue load",
    synopsis: "--file PATH [--dry-run]",
    summary: "replace the catalogue with a catalogue file (--dry-run: only check it); a refused file's problems one a line",
  },
  { name: "catalogue show", synopsis: "", summary: "the catalogue as the data planes receive it" },
  {
    name: "health",
    synopsis: "",
    summary: "the control plane's state and every data plane's latest report (status, link, rate limiting, open circuits)",
  },
  {
    name: "audit",
    synopsis: "[--kind KIND] [--limit N] [--before ID]",
    summary: "admin actions newest first, with who acted (project_created, topup, key_issued, key_revoked, catalogue...)",
    detail: "--before takes the id of the oldest action shown: the next page back.",
  },
  {
    name: "prices check",
    synopsis: "--sources DIR [--file CATALOGUE.json]",
    summary: "list the prices that disagree (beyond 0.5%) with the public price lists in DIR",
    detail: [
      "DIR is laid out like the shared price lists: litellm/, models.dev/, openrouter/. Every component of every",
      "path is checked against its own provider's figures (OpenRouter's list for openrouter paths, models.dev and",
      "litellm for direct ones and for the bedrock, vertex and azure clouds' own entries). Checks the loaded",
      "catalogue (admin API), or with --file a catalogue file.",
      "Exit status 1 when any price disagrees.",
    ].join("\n"),
  },
];

// A token on the command line is in every user's `ps` and in the shell's history: the environment is the way.
const CONNECTION = [
  "admin API: GATEWAY_ADMIN_URL and GATEWAY_ADMIN_TOKEN, else the file `pnpm start` writes (GATEWAY_LOCAL_DIR, default .data);",
  "  --url URL and --token TOKEN (shown to every user by ps: prefer GATEWAY_ADMIN_TOKEN) override them",
  "options: --json (machine-readable output), --help",
].join("\n");

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
