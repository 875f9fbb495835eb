// The Ledger page's filter lives in its address (?kind=&from=&to=&request=&key=), so that a request id is a
// link to its entries and hold, and Back returns to the previous filter.
import { hrefOf } from "../components/router";

export const ENTRY_KINDS = ["topup", "debit", "adjustment"] as const;
export const HOLD_STATUSES = ["active", "settled", "released", "expired", "refused"] as const;

export interface LedgerFilter {
  kind: "" | (typeof ENTRY_KINDS)[number];
  from: string;
  to: string;
  request: string;
  key: string;
}

const FIELDS = ["kind", "from", "to", "request", "key"] as const;

export function filterOf(params: URLSearchParams): LedgerFilter {
  const kind = params.get("kind") ?? "";
  return {
    kind: (ENTRY_KINDS as readonly string[]).includes(kind) ? (kind as LedgerFilter["kind"]) : "",
    from: params.get("from") ?? "",
    to: params.get("to") ?? "",
    request: params.get("request") ?? "",
    key: params.get("key") ?? "",
  };
}

/** The page's address for a project and a filter (empty fields left out). */
export function ledgerHref(projectId: string, filter: Partial<LedgerFilter> = {}): string {
  const params: Record<string, string> = { project: projectId };
  for (const field of FIELDS) if (filter[field]) params[field] = filter[field];
  return hrefOf("ledger", params);
}

/** The admin API's query for the filter's entries (`before`: the oldest entry already shown). */
export function entriesQuery(filter: LedgerFilter, limit: number, before: string | undefined) {
  return {
    limit,
    ...(filter.kind ? { kind: filter.kind } : {}),
    ...(filter.from ? { from: filter.from } : {}),
    ...(filter.to ? { to: filter.to } : {}),
    ...(filter.request ? { request_id: filter.request } : {}),
    ...(filter.key ? { key_id: filter.key } : {}),
    ...(before ? { before } : {}),
  };
}
