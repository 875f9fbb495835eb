// A whole answer as bytes, for an OpenAI chat client answered by an
// OpenAI-compatible upstream: read by the chat scan (is it a completion, how
// much text it produced, where its usage is), its usage alone parsed, and the
// cost spliced into the upstream's bytes (streams: engine/byte-event-decoder.ts).
import { isUtf8 } from "node:buffer";
import type { UsageRecord } from "../billing/pricing";
import { ChatJsonScan, MESSAGE } from "../dialects/openai/chat-json-scan";

/** A whole chat completion read from its bytes: its usage (parsed alone) and where to splice the cost. */
export interface WholeChatBytes {
  bytes: Buffer;
  scan: ChatJsonScan;
  /** The upstream's usage object, as the meter keeps it. */
  usage: Record<string, unknown>;
  record: UsageRecord | undefined;
}

/**
 * A whole answer the bytes path can relay: valid UTF-8 without a byte-order mark, a completion the scan
 * reads (an array of choices, no error, no images), a usage object, and no `service` of its own when
 * one is asked for. Undefined otherwise: the answer is parsed as before.
 * @param usageOf the codec's reading of the usage (it reads `usage` and `service_tier` only).
 */
export function wholeChatBytes(
  bytes: Buffer,
  withService: boolean,
  usageOf: (json: { usage: unknown; service_tier?: unknown }) => UsageRecord | undefined,
): WholeChatBytes | undefined {
  if (bytes[0] === 0xef || !isUtf8(bytes)) return undefined;
  const scan = new ChatJsonScan();
  if (!scan.scan(bytes, 0, bytes.length, MESSAGE) || !scan.choicesArray) return undefined;
  if (scan.usageStart === -1 || bytes[scan.usageStart] !== 0x7b || (withService && scan.hasService)) return undefined;
  const usage = JSON.parse(bytes.toString("utf8", scan.usageStart, scan.usageEnd)) as Record<string, unknown>;
  const tier = scan.tierStart === -1 ? undefined : (JSON.parse(bytes.toString("utf8", scan.tierStart, scan.tierEnd)) as unknown);
  return { bytes, scan, usage, record: usageOf({ usage, service_tier: tier }) };
}
