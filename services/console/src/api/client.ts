// The typed admin API client: openapi-fetch over the types generated from the API's OpenAPI document
// (src/generated/admin-api.ts), so a call to a route or a field the API lacks does not compile.
import createClient from "openapi-fetch";
import type { components, paths } from "../generated/admin-api";
import type { Session } from "./session";

export type AdminClient = ReturnType<typeof createClient<paths>>;
export type Schemas = components["schemas"];
export type Project = Schemas["Project"];
export type Balance = Schemas["Balance"];
export type Key = Schemas["Key"];
export type IssuedKey = Schemas["IssuedKey"];
export type Usage = Schemas["Usage"];
export type Money = Schemas["Balance"]["balance"];
export type CatalogueModel = Schemas["CatalogueModel"];
export type CatalogueRevision = Schemas["CatalogueRevision"];
/** A refused catalogue file's problem: where (JSON pointer), in which model's entry, what. */
export type CatalogueProblem = NonNullable<Schemas["Error"]["error"]["problems"]>[number];

/** An admin API error, with the API's own message (shown to the operator as it is). */
export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly code: string | undefined,
    /** A refused catalogue file's problems, against its entries (none for other errors). */
    readonly problems: CatalogueProblem[] = [],
  ) {
    super(message);
  }
}

/** Same origin: the console is served by the admin port it calls. `onUnauthorized`: the token was refused. */
export function adminClient(session: Session, onUnauthorized: () => void): AdminClient {
  const client = createClient<paths>({ baseUrl: window.location.origin });
  client.use({
    onRequest({ request }) {
      request.headers.set("authorization", session.authorization);
      return request;
    },
    onResponse({ response }) {
      if (response.status === 401) onUnauthorized();
      return response;
    },
  });
  return client;
}

/** The answer's data, or an ApiError in the API's words. */
export function unwrap<T>(result: { data?: T; error?: unknown; response: Response }): T {
  if (result.data !== undefined) return result.data;
  const body = result.error as Partial<Schemas["Error"]> | undefined;
  throw new ApiError(
    body?.error?.message ?? `the admin API answered ${result.response.status} ${result.response.statusText}`,
    result.response.status,
    body?.error?.code,
    body?.error?.problems ?? [],
  );
}

/** An error for the page, in words. */
export function describeError(error: unknown): string {
  if (error instanceof ApiError) return error.message;
  if (error instanceof TypeError) return "the control plane could not be reached";
  return error instanceof Error ? error.message : String(error);
}
export type LedgerEntry = Schemas["LedgerEntry"];
export type Hold = Schemas["Hold"];
