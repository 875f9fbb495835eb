// gatewayctl: the operators' command line over the admin HTTP API.
//
//   pnpm gatewayctl <command> [options] [--json]
//
// Connection: GATEWAY_ADMIN_URL / GATEWAY_ADMIN_TOKEN (the token belongs there, not in `ps`),
// else the file `pnpm start` writes (local-gateway-file.ts); --url / --token override them
// (admin-connection.ts). The commands live in their groups' modules (*-commands.ts).
import path from "node:path";
import { connection } from "./admin-connection";
import { CATALOGUE_COMMANDS } from "./catalogue-commands";
import { type Command, type CommandContext, need } from "./cli-command";
import { CliError } from "./cli-error";
import { commandHelp, overview } from "./command-help";
import { parseCommandLine } from "./command-options";
import { KEY_COMMANDS } from "./key-commands";
import { MONEY_COMMANDS } from "./money-commands";
import { OPERATIONS_COMMANDS } from "./operations-commands";
import { PROJECT_COMMANDS } from "./project-commands";

/** Every command by its name: one word ("ledger") or a group and a verb ("keys issue"). */
const COMMANDS: Record<string, Command> = {
  ...PROJECT_COMMANDS,
  ...KEY_COMMANDS,
  ...MONEY_COMMANDS,
  ...CATALOGUE_COMMANDS,
  ...OPERATIONS_COMMANDS,
};

async function run(argv: string[]): Promise<void> {
  const { values, positionals } = parseCommandLine(argv);
  const singleWord = Object.hasOwn(COMMANDS, positionals[0] ?? "") && !positionals[0]!.includes(" ");
  const command = positionals.slice(0, singleWord ? 1 : 2).join(" ");
  if (values.help || positionals.length === 0) {
    console.log((positionals.length > 0 && commandHelp(command)) || overview());
    return;
  }
  const found = Object.hasOwn(COMMANDS, command) ? COMMANDS[command] : undefined;
  if (!found) throw new CliError(`unknown command "${positionals.join(" ")}"\n\n${overview()}`);
  const context: CommandContext = {
    command,
    values,
    target: () => connection(values),
    project: () => encodeURIComponent(need(values.project, "project", command)),
    key: () => encodeURIComponent(need(values.key, "key", command)),
    fromCwd: (file) => path.resolve(process.env.INIT_CWD ?? process.cwd(), file),
  };
  const result = await found.run(context);
  console.log(values.json || !found.human ? JSON.stringify(result, null, 2) : found.human(result));
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
