// gatewayctl's flags, one table for every command (node:util parseArgs); each command reads the ones it takes.
import { parseArgs } from "node:util";
import { CliError } from "./cli-error";

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

export type CommandOptions = ReturnType<typeof parseOptions>["values"];

/** The command line parsed; a flag parseArgs refuses is the operator's mistake, said in one line. */
export function parseCommandLine(argv: string[]): ReturnType<typeof parseOptions> {
  try {
    return parseOptions(argv);
  } catch (error) {
    if (error instanceof TypeError) throw new CliError(error.message);
    throw error;
  }
}
