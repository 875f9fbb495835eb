// What a gatewayctl command is: how it runs against the admin API and how its answer reads for
// people. The command groups (*-commands.ts) hold them; gatewayctl.ts finds one by name and runs it.
import type { AdminConnection } from "./admin-connection";
import { CliError } from "./cli-error";
import { commandHelp, overview } from "./command-help";
import type { CommandOptions } from "./command-options";

export interface CommandContext {
  /** The command's name as typed: "keys issue", "ledger". */
  command: string;
  values: CommandOptions;
  /** The admin API (from the environment, the local gateway's file or the flags); read only by commands that call it. */
  target(): AdminConnection;
  /** --project, required, ready for a path. */
  project(): string;
  /** --key, required, ready for a path. */
  key(): string;
  /** A file named on the command line, from where the operator ran `pnpm gatewayctl`. */
  fromCwd(file: string): string;
}

export interface Command {
  run(context: CommandContext): Promise<unknown>;
  /** The answer for people (without --json); the JSON itself when absent. */
  human?(result: unknown): string;
}

/** A flag's value, or the error that names it and shows the command's page. */
export function need(value: string | undefined, flag: string, command: string): string {
  if (!value) throw new CliError(`--${flag} is required\n\n${commandHelp(command) ?? overview()}`);
  return value;
}
