// `usage.cost` (and a requested `service` block) written into an OpenAI chat
// completion or chunk as the upstream sent it, at the places a scan found
// (chat-json-scan.ts): the upstream's bytes are kept, its own `cost` (an
// aggregator's) replaced in place, as usageWithCost does to the object. For a
// compact body the result is byte for byte what JSON.stringify of the parsed,
// completed object gives.
import type { ChatScan } from "./chat-json-scan";

/**
 * `bytes` with `cost` in its usage object (`service` too, when given, as the last top-level member);
 * undefined when the scan found no usage object to complete.
 */
export function withUsageCost(bytes: Buffer, scan: ChatScan, cost: number, service?: unknown): Buffer | undefined {
  if (scan.usageStart === -1 || bytes[scan.usageStart] !== 0x7b) return undefined;
  const costText = JSON.stringify(cost);
  const parts: Buffer[] = [];
  let from = 0;
  if (scan.costStart !== -1) {
    parts.push(bytes.subarray(0, scan.costStart), Buffer.from(costText));
    from = scan.costEnd;
  } else {
    const close = scan.usageEnd - 1;
    const empty = lastNonSpace(bytes, scan.usageStart + 1, close) === -1;
    parts.push(bytes.subarray(0, close), Buffer.from(`${empty ? "" : ","}"cost":${costText}`));
    from = close;
  }
  if (service !== undefined) {
    parts.push(bytes.subarray(from, scan.closeAt), Buffer.from(`,"service":${JSON.stringify(service)}`));
    from = scan.closeAt;
  }
  parts.push(bytes.subarray(from));
  return Buffer.concat(parts);
}

/** The last byte in [start, end) that is not JSON space; -1 when there is none. */
function lastNonSpace(bytes: Buffer, start: number, end: number): number {
  for (let at = end - 1; at >= start; at--) {
    const byte = bytes[at]!;
    if (byte !== 0x20 && byte !== 0x09 && byte !== 0x0a && byte !== 0x0d) return at;
  }
  return -1;
}
