// gatewayctl's way to the admin API: where it is and with which token, and one call to it.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import type { ErrorBody } from "@gateway/proto/errors";
import { CliError } from "./cli-error";
import { LOCAL_GATEWAY_FILE, localGatewayDir } from "./local-gateway-file";

export interface AdminConnection {
  url: string;
  token: string;
}

/** --url / --token, else GATEWAY_ADMIN_URL / GATEWAY_ADMIN_TOKEN, else the file `pnpm start` writes. */
export function connection(values: { url?: string; token?: string }): AdminConnection {
  const localFile = path.join(localGatewayDir(process.env), LOCAL_GATEWAY_FILE);
  const local = existsSync(localFile) ? (JSON.parse(readFileSync(localFile, "utf8")) as { adminUrl?: string; adminToken?: string }) : {};
  const url = values.url ?? process.env.GATEWAY_ADMIN_URL ?? local.adminUrl;
  const token = values.token ?? process.env.GATEWAY_ADMIN_TOKEN ?? local.adminToken;
  if (!url || !token) throw new CliError("no admin API: set GATEWAY_ADMIN_URL and GATEWAY_ADMIN_TOKEN, or run `pnpm start` first");
  return { url: url.replace(/\/+$/, ""), token };
}

export async function call(target: AdminConnection, method: string, route: string, body?: unknown): Promise<unknown> {
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
export function apiQuery(parameters: Record<string, string | undefined>): string {
  const query = new URLSearchParams(Object.entries(parameters).filter((entry): entry is [string, string] => entry[1] !== undefined));
  return query.size ? `?${query}` : "";
}
