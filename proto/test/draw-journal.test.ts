// The draw journal's entries (src/draw-journal.ts): what a data plane writes, the control plane reads
// back unchanged; anything else is refused, since an entry becomes a debit.
import { describe, expect, it } from "vitest";
import { decodeJournalEntry, drawJournalKey, encodeJournalEntry, type JournalEntry } from "../src/draw-journal";

const entry: JournalEntry = {
  requestId: "req-1",
  leaseId: "lease:dp:1",
  projectId: "p1",
  amountNano: "1234",
  holdNano: "1000",
  model: "openai/gpt-4.1-mini",
  accessPath: "openai",
  inputTokens: 10,
  outputTokens: 20,
  costParts: [{ component: "input", units: 10, nano: "4000" }],
};

describe("draw journal entries", () => {
  it("reads back what was written, under one key per lease", () => {
    expect(decodeJournalEntry(encodeJournalEntry(entry))).toEqual(entry);
    expect(drawJournalKey("lease:dp:1")).toBe("gateway:draw-journal:lease:dp:1");
  });

  it("refuses anything that is not an entry: not JSON, a field missing, an amount not a whole non-negative number", () => {
    expect(decodeJournalEntry("not json")).toBeUndefined();
    expect(decodeJournalEntry("null")).toBeUndefined();
    const { requestId: _, ...withoutId } = entry;
    expect(decodeJournalEntry(JSON.stringify(withoutId))).toBeUndefined();
    for (const amount of ["-5", "1.5", "", "1e9"]) {
      expect(decodeJournalEntry(JSON.stringify({ ...entry, amountNano: amount })), amount).toBeUndefined();
      expect(decodeJournalEntry(JSON.stringify({ ...entry, holdNano: amount })), amount).toBeUndefined();
    }
    expect(decodeJournalEntry(JSON.stringify({ ...entry, costParts: "none" }))).toBeUndefined();
    expect(decodeJournalEntry(JSON.stringify({ ...entry, costParts: [{ component: "input", units: 1, nano: "-1" }] }))).toBeUndefined();
  });
});
