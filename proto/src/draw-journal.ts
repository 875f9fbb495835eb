// The draw journal (docs/money.md, "A killed data plane"): where a data plane keeps each debit it
// answered under a budget lease before the answer leaves, and the control plane reads the debits of a
// lease whose data plane died. Both planes name the journal and read its entries from here only.
//
// A draw is encoded once (docs/money.md, "One encoding per debit"): the data plane writes the entry's
// bytes to its journal, sends the same bytes in the Draw call, and the control plane, having checked
// them, splices them into the gateway_apply_batch array with the lease's new expiry. Journals written
// before entries (camelCase fields, decodeDrawEntry's `older` form) are still read.

import { INT64_MAX, TOKENS_MAX, wireAmount, wireTokens } from "./wire-numbers";

/** One answered request's debit from a lease. */
export interface DrawFields {
  requestId: string;
  leaseId: string;
  projectId: string;
  amountNano: bigint;
  /** The most the draw may debit: what the client was told (`usage.cost`). */
  holdNano: bigint;
  model: string;
  accessPath: string;
  inputTokens: number;
  outputTokens: number;
  /** The cost by component; units are tokens (or images, requests, searches). */
  costParts?: readonly { component: string; units: number; nano: bigint }[];
  /** The request's API key (absent in entries written before keys were recorded). */
  keyId?: string;
}

/** A checked entry: its fields, and its bytes as gateway_apply_batch's draw element less `expires_at`. */
export interface DrawEntry extends DrawFields {
  text: string;
}

/** A Redis hash per lease, field = request id (a replayed append changes nothing). */
export const drawJournalKey = (leaseId: string): string => `gateway:draw-journal:${leaseId}`;

/**
 * How long a lease's journal outlives its first append when nobody deletes it: the data plane deletes it
 * once the lease is released, the control plane once it has reconciled an expired lease. Far beyond any
 * hold TTL, so the sweeper always reads it first.
 */
export const DRAW_JOURNAL_KEEP_MS = 7 * 24 * 3600 * 1000;

const ENTRY_START = '{"op":"draw",';
const FIELDS = new Set([
  "op",
  "request_id",
  "lease_id",
  "project_id",
  "amount",
  "hold",
  "model",
  "access_path",
  "input_tokens",
  "output_tokens",
  "cost_parts",
  "key_id",
]);

/** The entry's bytes (as text): fixed key order, amounts as decimal strings, an empty model or path as null. */
export function encodeDrawEntry(draw: DrawFields): string {
  const parts = draw.costParts ?? [];
  return JSON.stringify({
    op: "draw",
    request_id: draw.requestId,
    lease_id: draw.leaseId,
    project_id: draw.projectId,
    amount: wireAmount(draw.amountNano),
    hold: wireAmount(draw.holdNano),
    model: draw.model || null,
    access_path: draw.accessPath || null,
    input_tokens: wireTokens(draw.inputTokens),
    output_tokens: wireTokens(draw.outputTokens),
    ...(parts.length > 0
      ? { cost_parts: Object.fromEntries(parts.map((part) => [part.component, { units: part.units, nano: wireAmount(part.nano) }])) }
      : {}),
    ...(draw.keyId ? { key_id: draw.keyId } : {}),
  });
}

/** gateway_apply_batch's draw element: a checked entry's own text with the expiry the control plane sets. */
export const drawElement = (entryText: string, expiresAt: string): string =>
  `{"expires_at":${JSON.stringify(expiresAt)},${entryText.slice(1)}`;

const isAmount = (value: unknown): value is string => typeof value === "string" && /^\d{1,19}$/.test(value) && BigInt(value) <= INT64_MAX;
const isCount = (value: unknown, max: number): value is number =>
  Number.isSafeInteger(value) && (value as number) >= 0 && (value as number) <= max;
const optionalString = (value: unknown): value is string | null | undefined =>
  value === undefined || value === null || typeof value === "string";

/**
 * An entry as encodeDrawEntry wrote it, or one of the journal's older form (re-encoded), or undefined
 * for anything else: it becomes a debit, so nothing is taken on trust (an unknown field, an expiry of
 * its own, an amount that is not a whole non-negative int64).
 */
export function decodeDrawEntry(bytes: string | Buffer): DrawEntry | undefined {
  const text = typeof bytes === "string" ? bytes : bytes.toString("utf8");
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  const entry = value as Record<string, unknown>;
  if (!text.startsWith(ENTRY_START)) return olderEntry(entry);
  if (entry.op !== "draw" || !Object.keys(entry).every((field) => FIELDS.has(field))) return undefined;
  const { request_id, lease_id, project_id, amount, hold, model, access_path, input_tokens, output_tokens, key_id } = entry;
  if (typeof request_id !== "string" || typeof lease_id !== "string" || typeof project_id !== "string") return undefined;
  if (!isAmount(amount) || !isAmount(hold) || !isCount(input_tokens, TOKENS_MAX) || !isCount(output_tokens, TOKENS_MAX)) return undefined;
  if (!optionalString(model) || !optionalString(access_path) || !optionalString(key_id)) return undefined;
  const costParts = entry.cost_parts === undefined ? [] : partsOf(entry.cost_parts);
  if (!costParts) return undefined;
  return {
    text,
    requestId: request_id,
    leaseId: lease_id,
    projectId: project_id,
    amountNano: BigInt(amount),
    holdNano: BigInt(hold),
    model: model ?? "",
    accessPath: access_path ?? "",
    inputTokens: input_tokens,
    outputTokens: output_tokens,
    ...(costParts.length > 0 ? { costParts } : {}),
    ...(key_id ? { keyId: key_id } : {}),
  };
}

function partsOf(value: unknown): DrawFields["costParts"] | undefined {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  const parts: { component: string; units: number; nano: bigint }[] = [];
  for (const [component, part] of Object.entries(value)) {
    const { units, nano } = (part ?? {}) as Record<string, unknown>;
    if (!isCount(units, Number.MAX_SAFE_INTEGER) || !isAmount(nano)) return undefined;
    parts.push({ component, units, nano: BigInt(nano) });
  }
  return parts;
}

/** The journal's form before entries (camelCase, parts as a list): its fields, re-encoded as an entry. */
function olderEntry(entry: Record<string, unknown>): DrawEntry | undefined {
  const strings = ["requestId", "leaseId", "projectId", "model", "accessPath"] as const;
  if (!strings.every((field) => typeof entry[field] === "string")) return undefined;
  if (!isAmount(entry.amountNano) || !isAmount(entry.holdNano)) return undefined;
  if (typeof entry.inputTokens !== "number" || typeof entry.outputTokens !== "number" || !Array.isArray(entry.costParts)) return undefined;
  const parts = entry.costParts as Record<string, unknown>[];
  if (!parts.every((part) => typeof part?.component === "string" && typeof part.units === "number" && isAmount(part.nano)))
    return undefined;
  if (entry.keyId !== undefined && typeof entry.keyId !== "string") return undefined;
  const fields: DrawFields = {
    requestId: entry.requestId as string,
    leaseId: entry.leaseId as string,
    projectId: entry.projectId as string,
    amountNano: BigInt(entry.amountNano),
    holdNano: BigInt(entry.holdNano),
    model: entry.model as string,
    accessPath: entry.accessPath as string,
    inputTokens: entry.inputTokens,
    outputTokens: entry.outputTokens,
    ...(parts.length > 0
      ? {
          costParts: parts.map((part) => ({
            component: part.component as string,
            units: part.units as number,
            nano: BigInt(part.nano as string),
          })),
        }
      : {}),
    ...(entry.keyId ? { keyId: entry.keyId as string } : {}),
  };
  return { ...fields, text: encodeDrawEntry(fields) };
}

/** The journal's older form, still written for leases of a control plane that predates entries (LeaseResponse.draw_entries). */
export function encodeOlderEntry(draw: DrawFields): string {
  return JSON.stringify({
    requestId: draw.requestId,
    leaseId: draw.leaseId,
    projectId: draw.projectId,
    amountNano: draw.amountNano.toString(),
    holdNano: draw.holdNano.toString(),
    model: draw.model,
    accessPath: draw.accessPath,
    inputTokens: draw.inputTokens,
    outputTokens: draw.outputTokens,
    costParts: (draw.costParts ?? []).map((part) => ({ component: part.component, units: part.units, nano: part.nano.toString() })),
    ...(draw.keyId ? { keyId: draw.keyId } : {}),
  });
}
