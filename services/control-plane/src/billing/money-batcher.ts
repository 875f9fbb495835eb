// Group commit for money. Reserve, settle and release calls that arrive while
// a batch is being written wait in a queue and go to the database together:
// one call to gateway_apply_batch, one transaction, one commit. An idle
// batcher writes a lone call at once, so batching adds no latency when quiet
// and under load turns N transactions into one. The database functions keep
// every rule (balance, cap, idempotency); this class only sequences.
//
// A batch is sorted by project id (stably: a project's own operations keep
// their order) so that every batch, from every replica, locks project rows in
// the same order.
import { drawElement } from "@gateway/proto";
import type { Database } from "../database/connect";

export type MoneyOperation =
  | {
      op: "reserve";
      request_id: string;
      project_id: string;
      amount: string;
      min_amount: string;
      day: string;
      expires_at: string;
      model: string;
      access_path: string;
    }
  | {
      op: "settle";
      request_id: string;
      project_id: string;
      amount: string;
      model: string | null;
      access_path: string | null;
      input_tokens: number;
      output_tokens: number;
    }
  | { op: "release"; request_id: string; project_id: string; keep?: string }
  | { op: "renew"; request_id: string; project_id: string; expires_at: string }
  | {
      op: "lease";
      request_id: string;
      project_id: string;
      amount: string;
      min_amount: string;
      share: number;
      day: string;
      expires_at: string;
    }
  /** A draw is its entry's own text (@gateway/proto's draw-journal.ts), spliced into the batch with its expiry. */
  | { op: "draw"; project_id: string; entry: string; expires_at: string };

export interface MoneyResult {
  outcome: string;
  available?: string;
  reserved?: string;
  debited?: string;
}

interface Pending {
  operation: MoneyOperation;
  resolve: (result: MoneyResult) => void;
  reject: (error: unknown) => void;
}

export class MoneyBatcher {
  private queue: Pending[] = [];
  private writing: Promise<void> | undefined;
  /** Batches written and operations in them, for the throughput figures. */
  batches = 0;
  operations = 0;

  constructor(
    private readonly database: Pick<Database, "query">,
    private readonly maxBatch = 500,
  ) {}

  submit(operation: MoneyOperation): Promise<MoneyResult> {
    return new Promise((resolve, reject) => {
      this.queue.push({ operation, resolve, reject });
      this.writing ??= this.drain().finally(() => (this.writing = undefined));
    });
  }

  /** Resolves once everything queued so far is written. */
  async idle(): Promise<void> {
    while (this.writing) await this.writing;
  }

  private async drain(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, this.maxBatch);
      // Array.prototype.sort is stable: one project's operations keep their order.
      batch.sort((a, b) =>
        a.operation.project_id < b.operation.project_id ? -1 : a.operation.project_id > b.operation.project_id ? 1 : 0,
      );
      try {
        const results = await this.write(batch);
        for (const [index, entry] of batch.entries()) entry.resolve(results[index]!);
      } catch (error) {
        // The transaction rolled back: none of these happened. A deadlock or
        // one bad operation must not fail the others: each is tried alone.
        if (batch.length === 1) {
          batch[0]!.reject(error);
          continue;
        }
        for (const entry of batch) {
          await this.write([entry]).then(
            ([result]) => entry.resolve(result!),
            (single: unknown) => entry.reject(single),
          );
        }
      }
    }
  }

  private async write(batch: Pending[]): Promise<MoneyResult[]> {
    const elements = batch.map(({ operation }) =>
      operation.op === "draw" ? drawElement(operation.entry, operation.expires_at) : JSON.stringify(operation),
    );
    const rows = await this.database.query<{ results: MoneyResult[] }>("SELECT gateway_apply_batch($1::jsonb) AS results", [
      `[${elements.join(",")}]`,
    ]);
    this.batches++;
    this.operations += batch.length;
    return rows[0]!.results;
  }
}
