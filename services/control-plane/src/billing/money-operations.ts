// The per-request money operations the data planes ask for over gRPC (reserve, settle, release; budget
// leases and their draws): what each takes and what it answers. LedgerService (ledger-service.ts) runs them.
export type ReserveOutcome =
  | "reserved"
  | "insufficient_credits"
  | "spend_cap_exceeded"
  | "unknown_project"
  | "key_budget_exceeded"
  | "key_spend_cap_exceeded";
/** A Reserve's answer (and a CheckSpend's, which reserves nothing). */
export interface ReserveAnswer {
  outcome: ReserveOutcome;
  availableNano: bigint;
  reservedNano: bigint;
  retryAfterSeconds: number;
  ttlSeconds: number;
}

export type SettleOutcome = "settled" | "already_released" | "unknown_request";
export type ReleaseOutcome = "released" | "already_settled" | "unknown_request" | "reduced";

export interface ReserveInput {
  requestId: string;
  projectId: string;
  amountNano: bigint;
  /** When > 0 and amountNano does not fit, hold what fits if it is at least this much. */
  minAmountNano?: bigint;
  model: string;
  accessPath: string;
  /** The request's API key: its own budget and daily cap bound the hold too (docs/keys.md). */
  keyId?: string;
}

/** A debit's cost by component: {component: {units, nano}} (the ledger's cost_parts, docs/money.md). */
export type CostParts = Record<string, { units: number; nano: string }>;

export interface SettleInput {
  requestId: string;
  projectId: string;
  amountNano: bigint;
  model: string;
  accessPath: string;
  inputTokens: number;
  outputTokens: number;
  costParts?: CostParts;
}

export interface LeaseInput {
  leaseId: string;
  projectId: string;
  amountNano: bigint;
  minAmountNano: bigint;
}

/** A lease holds at most this share of what a project can spend (1/8): a busy data plane never takes the whole balance. */
export const LEASE_SHARE = 8;
