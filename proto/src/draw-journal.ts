// The draw journal (docs/money.md, "A killed data plane"): where a data plane keeps each debit it
// answered under a budget lease before the answer leaves, and the control plane reads the debits of a
// lease whose data plane died. Both planes name the journal and read its entries from here only.

/** One answered request's debit from a lease: the Draw the data plane sends, amounts as decimal strings. */
export interface JournalEntry {
  requestId: string;
  leaseId: string;
  projectId: string;
  amountNano: string;
  /** The most the draw may debit: what the client was told (`usage.cost`). */
  holdNano: string;
  model: string;
  accessPath: string;
  inputTokens: number;
  outputTokens: number;
  costParts: { component: string; units: number; nano: string }[];
  /** The request's API key (absent in entries written before keys were recorded). */
  keyId?: string;
}

/** A Redis hash per lease, field = request id (a replayed append changes nothing). */
export const drawJournalKey = (leaseId: string): string => `gateway:draw-journal:${leaseId}`;

/**
 * How long a lease's journal outlives its first append when nobody deletes it: the data plane deletes it
 * once the lease is released, the control plane once it has reconciled an expired lease. Far beyond any
 * hold TTL, so the sweeper always reads it first.
 */
export const DRAW_JOURNAL_KEEP_MS = 7 * 24 * 3600 * 1000;

export const encodeJournalEntry = (entry: JournalEntry): string => JSON.stringify(entry);

/** An entry as written by encodeJournalEntry, or undefined for anything else (never trusted blindly: it becomes a debit). */
export function decodeJournalEntry(text: string): JournalEntry | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== "object" || value === null) return undefined;
  const entry = value as Record<string, unknown>;
  const strings = ["requestId", "leaseId", "projectId", "amountNano", "holdNano", "model", "accessPath"] as const;
  if (!strings.every((field) => typeof entry[field] === "string")) return undefined;
  if (!/^\d+$/.test(entry.amountNano as string) || !/^\d+$/.test(entry.holdNano as string)) return undefined;
  if (typeof entry.inputTokens !== "number" || typeof entry.outputTokens !== "number" || !Array.isArray(entry.costParts)) return undefined;
  const part = (value: unknown) => {
    const candidate = value as Record<string, unknown> | null;
    return (
      typeof candidate?.component === "string" &&
      typeof candidate.units === "number" &&
      typeof candidate.nano === "string" &&
      /^\d+$/.test(candidate.nano)
    );
  };
  if (!entry.costParts.every(part)) return undefined;
  if (entry.keyId !== undefined && typeof entry.keyId !== "string") return undefined;
  return entry as unknown as JournalEntry;
}
