// The operator's mistake, said in one line by gatewayctl (exit status 1); any other error is a fault.
export class CliError extends Error {}
