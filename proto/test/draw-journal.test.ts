// The draw journal's entries (src/draw-journal.ts): the one encoding of a draw that the data plane
// journals and sends and the control plane applies; the older journal form still read; anything else
// refused, since an entry becomes a debit.
import { describe, expect, it } from "vitest";
import { type DrawFields, decodeDrawEntry, drawElement, drawJournalKey, encodeDrawEntry, encodeOlderEntry } from "../src/draw-journal";

const draw: DrawFields = {
  requestId: "req-1",
  leaseId: "lease:dp:1",
  projectId: "p1",
  amountNano: 1234n,
  holdNano: 1000n,
  model: "openai/gpt-4.1-mini",
  accessPath: "openai",
  inputTokens: 10,
  outputTokens: 20,
  costParts: [
    { component: "input", units: 10, nano: 4000n },
    { component: "output", units: 20, nano: 8000n },
  ],
  keyId: "key-1",
};

/** gateway_apply_batch's draw element as the control plane built it before entries, with the same expiry. */
const elementBefore = (fields: DrawFields, expiresAt: string) => ({
  op: "draw",
  request_id: fields.requestId,
  lease_id: fields.leaseId,
  project_id: fields.projectId,
  amount: fields.amountNano.toString(),
  hold: fields.holdNano.toString(),
  expires_at: expiresAt,
  model: fields.model || null,
  access_path: fields.accessPath || null,
  input_tokens: fields.inputTokens,
  output_tokens: fields.outputTokens,
  ...(fields.costParts?.length
    ? {
        cost_parts: Object.fromEntries(fields.costParts.map((part) => [part.component, { units: part.units, nano: part.nano.toString() }])),
      }
    : {}),
  ...(fields.keyId ? { key_id: fields.keyId } : {}),
});

describe("draw journal entries", () => {
  it("reads back what was written, under one key per lease; its element is the one the control plane built from fields", () => {
    const text = encodeDrawEntry(draw);
    expect(decodeDrawEntry(text)).toEqual({ ...draw, text });
    expect(decodeDrawEntry(Buffer.from(text))).toEqual({ ...draw, text });
    const expiresAt = "2026-11-30T12:00:00.000Z";
    expect(JSON.parse(drawElement(text, expiresAt))).toEqual(elementBefore(draw, expiresAt));
    const bare: DrawFields = { ...draw, model: "", accessPath: "", costParts: [], keyId: undefined };
    const bareText = encodeDrawEntry(bare);
    expect(JSON.parse(drawElement(bareText, expiresAt))).toEqual(elementBefore(bare, expiresAt));
    const { keyId: _, costParts: __, ...withoutOptional } = bare;
    expect(decodeDrawEntry(bareText)).toEqual({ ...withoutOptional, text: bareText });
    expect(drawJournalKey("lease:dp:1")).toBe("gateway:draw-journal:lease:dp:1");
  });

  it("reads the older form (journals written before entries) as the same draw, re-encoded", () => {
    const older = encodeOlderEntry(draw);
    expect(older.startsWith('{"requestId":')).toBe(true);
    expect(decodeDrawEntry(older)).toEqual({ ...draw, text: encodeDrawEntry(draw) });
  });

  it("clamps what the data plane could not have meant: amounts to int64, token counts to 32 bits", () => {
    const entry = decodeDrawEntry(encodeDrawEntry({ ...draw, amountNano: 2n ** 70n, inputTokens: 2 ** 40, outputTokens: -3 }))!;
    expect([entry.amountNano, entry.inputTokens, entry.outputTokens]).toEqual([2n ** 63n - 1n, 2_147_483_647, 0]);
  });

  it("refuses anything that is not an entry: not JSON, a field missing or unknown, an expiry of its own, another op, a bad amount", () => {
    const fields = JSON.parse(encodeDrawEntry(draw)) as Record<string, unknown>;
    const entryWith = (changes: Record<string, unknown>) => JSON.stringify({ ...fields, ...changes });
    for (const text of ["not json", "null", "[]", "{}", ` ${encodeDrawEntry(draw)}`.replace(' {"op"', '{ "op"')])
      expect(decodeDrawEntry(text), text).toBeUndefined();
    const { request_id: _, ...withoutId } = fields;
    expect(decodeDrawEntry(JSON.stringify(withoutId))).toBeUndefined();
    expect(decodeDrawEntry(entryWith({ expires_at: "2999-01-01T00:00:00Z" }))).toBeUndefined();
    expect(decodeDrawEntry(entryWith({ debit_twice: true }))).toBeUndefined();
    // A second "op" wins in JSON.parse as in jsonb: refused as a settle.
    expect(decodeDrawEntry(`${encodeDrawEntry(draw).slice(0, -1)},"op":"settle"}`)).toBeUndefined();
    for (const amount of ["-5", "1.5", "", "1e9", "9223372036854775808", 5]) {
      expect(decodeDrawEntry(entryWith({ amount })), String(amount)).toBeUndefined();
      expect(decodeDrawEntry(entryWith({ hold: amount })), String(amount)).toBeUndefined();
    }
    for (const count of [-1, 1.5, "3", 2 ** 31]) expect(decodeDrawEntry(entryWith({ input_tokens: count })), String(count)).toBeUndefined();
    expect(decodeDrawEntry(entryWith({ cost_parts: [] }))).toBeUndefined();
    expect(decodeDrawEntry(entryWith({ cost_parts: { input: { units: 1, nano: "-1" } } }))).toBeUndefined();
    expect(decodeDrawEntry(entryWith({ cost_parts: { input: { units: -1, nano: "1" } } }))).toBeUndefined();
    expect(decodeDrawEntry(entryWith({ key_id: 7 }))).toBeUndefined();
    // The older form keeps its own checks.
    const older = JSON.parse(encodeOlderEntry(draw)) as Record<string, unknown>;
    for (const amountNano of ["-5", "1.5", ""])
      expect(decodeDrawEntry(JSON.stringify({ ...older, amountNano })), amountNano).toBeUndefined();
    expect(decodeDrawEntry(JSON.stringify({ ...older, costParts: "none" }))).toBeUndefined();
    expect(decodeDrawEntry(JSON.stringify({ ...older, costParts: [{ component: "input", units: 1, nano: "-1" }] }))).toBeUndefined();
  });
});
