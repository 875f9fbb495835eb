// JSON shapes of the admin API. Money is shown as nano-USD strings (exact)
// next to USD decimal strings (readable).
import { formatUsd } from "../billing/money";
import type { Balance, UsageRow } from "../billing/ledger-service";
import type { KeySpend } from "../keys/key-service";

interface ProjectRow {
  id: string;
  name: string;
  createdAt: Date;
  rpmLimit: number | null;
  dailyCapNano: bigint | null;
}

interface KeyRow {
  id: string;
  projectId: string;
  hint: string;
  name: string | null;
  createdAt: Date;
  revokedAt: Date | null;
  expiresAt: Date | null;
  replacedBy: string | null;
  rpmLimit: number | null;
  dailyCapNano: bigint | null;
  budgetNano: bigint | null;
  spentNano: bigint;
  heldNano: bigint;
}

interface LedgerRow {
  id: bigint;
  kind: string;
  amountNano: bigint;
  requestId: string | null;
  idempotencyKey: string | null;
  day: Date;
  model: string | null;
  accessPath: string | null;
  inputTokens: number | null;
  outputTokens: number | null;
  /** {component: {units, nano}} as the settle wrote it (null on credits and older debits). */
  costParts: unknown;
  keyId: string | null;
  createdAt: Date;
}

export const money = (nano: bigint) => ({ nano: nano.toString(), usd: formatUsd(nano) });

/** A debit's stored split as the API shows it; null when it has none. */
function costByComponent(parts: unknown) {
  if (typeof parts !== "object" || parts === null) return null;
  return Object.fromEntries(
    Object.entries(parts as Record<string, { units: number; nano: string }>).map(([component, part]) => [
      component,
      { units: part.units, cost: money(BigInt(part.nano)) },
    ]),
  );
}

export const presentProject = (project: ProjectRow) => ({
  id: project.id,
  name: project.name,
  created_at: project.createdAt.toISOString(),
  rpm_limit: project.rpmLimit,
  daily_cap: project.dailyCapNano === null ? null : money(project.dailyCapNano),
});

/**
 * A key with its limits and its spend in the ledger (`spend`). `limits` is the key whose limits and
 * counters apply (its successor after a rotation); `now` decides whether it has expired.
 */
export const presentKey = (key: KeyRow, spend: KeySpend, now: Date, limits: KeyRow = key) => ({
  id: key.id,
  project_id: key.projectId,
  hint: `…${key.hint}`,
  name: key.name,
  created_at: key.createdAt.toISOString(),
  revoked_at: key.revokedAt?.toISOString() ?? null,
  status: key.revokedAt ? "revoked" : key.expiresAt && key.expiresAt <= now ? "expired" : "active",
  expires_at: key.expiresAt?.toISOString() ?? null,
  replaced_by: key.replacedBy,
  rpm_limit: limits.rpmLimit,
  daily_cap: limits.dailyCapNano === null ? null : money(limits.dailyCapNano),
  budget: limits.budgetNano === null ? null : money(limits.budgetNano),
  budget_left: limits.budgetNano === null ? null : money(limits.budgetNano - limits.spentNano - limits.heldNano),
  spend: { total: money(spend.totalNano), today: money(spend.todayNano), requests: spend.requests },
  last_used_at: spend.lastUsedAt?.toISOString() ?? null,
});

export const presentBalance = (balance: Balance) => ({
  project_id: balance.projectId,
  balance: money(balance.balanceNano),
  held: money(balance.heldNano),
  available: money(balance.availableNano),
  daily_cap: balance.dailyCapNano === null ? null : money(balance.dailyCapNano),
  spent_today: money(balance.spentTodayNano),
});

export const presentLedgerEntry = (entry: LedgerRow) => ({
  id: entry.id.toString(),
  kind: entry.kind,
  amount: money(entry.amountNano),
  request_id: entry.requestId,
  idempotency_key: entry.idempotencyKey,
  day: entry.day.toISOString().slice(0, 10),
  model: entry.model,
  access_path: entry.accessPath,
  input_tokens: entry.inputTokens,
  output_tokens: entry.outputTokens,
  cost_by_component: costByComponent(entry.costParts),
  key_id: entry.keyId,
  created_at: entry.createdAt.toISOString(),
});

interface HoldRow {
  requestId: string;
  amountNano: bigint;
  day: Date;
  status: string;
  model: string | null;
  accessPath: string | null;
  createdAt: Date;
  expiresAt: Date;
  closedAt: Date | null;
  debitedNano: bigint | null;
  unbilledNano: bigint | null;
  refusal: string | null;
  lease: boolean;
}

export const presentHold = (hold: HoldRow) => ({
  request_id: hold.requestId,
  status: hold.status,
  amount: money(hold.amountNano),
  day: hold.day.toISOString().slice(0, 10),
  model: hold.model,
  access_path: hold.accessPath,
  created_at: hold.createdAt.toISOString(),
  expires_at: hold.expiresAt.toISOString(),
  closed_at: hold.closedAt?.toISOString() ?? null,
  debited: hold.debitedNano === null ? null : money(hold.debitedNano),
  unbilled: hold.unbilledNano === null ? null : money(hold.unbilledNano),
  refusal: hold.refusal,
  // A budget lease: many requests' debits were drawn from it (debited adds them up); amount is what it still holds.
  lease: hold.lease,
});

const unitsOf = (row: UsageRow, ...components: string[]) =>
  components.reduce((sum, component) => sum + (row.components[component]?.units ?? 0), 0);

/**
 * The row's tokens split by type, each token in one type: the prompt's cache reads, its cache writes (both
 * lifetimes) and the rest of it; the answer's reasoning and the rest of it. From the cost split, so a debit
 * written before the split existed counts as plain input and output.
 */
function tokensByType(row: UsageRow) {
  const cached = unitsOf(row, "cached_input");
  const cacheWrite = unitsOf(row, "cache_write_5m", "cache_write_1h");
  const reasoning = unitsOf(row, "reasoning");
  return {
    input: row.inputTokens - cached - cacheWrite,
    cached_input: cached,
    cache_write: cacheWrite,
    output: row.outputTokens - reasoning,
    reasoning,
  };
}

/** What share of the input the provider served from its cache: what conversation affinity keeps high (docs/money.md). */
const cachedShare = (cached: number, input: number) => (input === 0 ? 0 : Math.round((cached / input) * 10_000) / 10_000);

const presentUsageRow = (row: UsageRow) => {
  const tokens = tokensByType(row);
  return {
    day: row.day,
    model: row.model,
    requests: row.requests,
    input_tokens: row.inputTokens,
    output_tokens: row.outputTokens,
    tokens,
    cached_share: cachedShare(tokens.cached_input, row.inputTokens),
    cost: money(row.costNano),
    // What each component cost (tokens or units billed at it); the parts add up to `cost` unless a debit was capped at its hold.
    cost_by_component: Object.fromEntries(
      Object.entries(row.components).map(([component, part]) => [component, { units: part.units, cost: money(part.costNano) }]),
    ),
  };
};

/** What rows add up to: requests, tokens (in all and by type) and cost, exactly. */
function usageTotals(rows: UsageRow[]) {
  const tokens = { input: 0, cached_input: 0, cache_write: 0, output: 0, reasoning: 0 };
  let [requests, inputTokens, outputTokens, costNano] = [0, 0, 0, 0n];
  for (const row of rows) {
    requests += row.requests;
    inputTokens += row.inputTokens;
    outputTokens += row.outputTokens;
    costNano += row.costNano;
    const byType = tokensByType(row);
    for (const type of Object.keys(tokens) as (keyof typeof tokens)[]) tokens[type] += byType[type];
  }
  return {
    requests,
    input_tokens: inputTokens,
    output_tokens: outputTokens,
    tokens,
    cached_share: cachedShare(tokens.cached_input, inputTokens),
    cost: money(costNano),
  };
}

/** Rows grouped by `keyOf`, each group with its totals. */
function totalsBy(rows: UsageRow[], keyOf: (row: UsageRow) => string) {
  const groups = new Map<string, UsageRow[]>();
  for (const row of rows) {
    const group = groups.get(keyOf(row));
    if (group) group.push(row);
    else groups.set(keyOf(row), [row]);
  }
  return [...groups].map(([key, group]) => ({ key, totals: usageTotals(group) }));
}

/**
 * A usage answer: its days, a row per day and model, the totals of each day with traffic, of each model (the
 * most spent first) and of the range.
 */
export function presentUsage(usage: { from: string; to: string; rows: UsageRow[] }) {
  const spent = (entry: { totals: { cost: { nano: string } } }) => BigInt(entry.totals.cost.nano);
  const models = totalsBy(usage.rows, (row) => row.model).sort((a, b) =>
    spent(b) > spent(a) ? 1 : spent(b) < spent(a) ? -1 : a.key.localeCompare(b.key),
  );
  return {
    from: usage.from,
    to: usage.to,
    data: usage.rows.map(presentUsageRow),
    by_day: totalsBy(usage.rows, (row) => row.day).map(({ key, totals }) => ({ day: key, ...totals })),
    by_model: models.map(({ key, totals }) => ({ model: key, ...totals })),
    total: usageTotals(usage.rows),
  };
}
