// AWS event-stream messages as Bedrock sends them (`application/vnd.amazon.eventstream`):
// encoded and decoded by @smithy's EventStreamCodec (prelude and message CRCs included).
// Event messages carry `:event-type`, `:content-type`, `:message-type` in that order and a
// JSON payload with keys in alphabetical order and a `p` padding string.
import { EventStreamCodec } from "@smithy/core/event-streams";
import { fromUtf8, toUtf8 } from "@smithy/util-utf8";
import { isRecord, type Json } from "../json";

export const EVENT_STREAM_TYPE = "application/vnd.amazon.eventstream";

const codec = new EventStreamCodec(toUtf8, fromUtf8);

/** One event as the mock handles it: its `:event-type` and its payload (the `p` padding included, when recorded). */
export interface BedrockEvent {
  type: string;
  payload: Json;
}

/** `value` with object keys in alphabetical order at every depth, as Bedrock serialises its JSON. */
export function sortedKeys<T>(value: T): T {
  if (Array.isArray(value)) return value.map(sortedKeys) as T;
  if (!isRecord(value)) return value;
  const out: Json = {};
  for (const key of Object.keys(value).sort()) out[key] = sortedKeys(value[key]);
  return out as T;
}

const PADDING_ALPHABET = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

/**
 * The `p` Bedrock adds to hide payload lengths: a prefix of the alphabet, 2 to 61 characters
 * in the recordings. Derived from the payload, so an answer is the same every time.
 */
export function padding(payload: Json): string {
  const length = JSON.stringify(payload).length;
  return PADDING_ALPHABET.slice(0, 2 + ((length * 7) % 60));
}

/** A payload without `p` gets one; keys sorted. */
export function padded(payload: Json): Json {
  if ("p" in payload) return sortedKeys(payload);
  return sortedKeys({ ...payload, p: padding(payload) });
}

export function encodeEvent(event: BedrockEvent): Uint8Array {
  return codec.encode({
    headers: {
      ":event-type": { type: "string", value: event.type },
      ":content-type": { type: "string", value: "application/json" },
      ":message-type": { type: "string", value: "event" },
    },
    body: fromUtf8(JSON.stringify(event.payload)),
  });
}

/** A valid message (CRCs right) whose payload is not JSON: the event-stream form of `malformed-sse`. */
export function malformedEvent(type: string): Uint8Array {
  return codec.encode({
    headers: {
      ":event-type": { type: "string", value: type },
      ":content-type": { type: "string", value: "application/json" },
      ":message-type": { type: "string", value: "event" },
    },
    body: fromUtf8("{malformed json, this is not parseable"),
  });
}

export interface DecodedMessage {
  headers: Record<string, string>;
  body: string;
}

/** Every message of a recorded body, in order; the codec checks both CRCs of each. */
export function decodeMessages(bytes: Uint8Array): DecodedMessage[] {
  const messages: DecodedMessage[] = [];
  let offset = 0;
  while (offset < bytes.length) {
    const total = new DataView(bytes.buffer, bytes.byteOffset + offset, 4).getUint32(0);
    const message = codec.decode(bytes.subarray(offset, offset + total));
    const headers: Record<string, string> = {};
    for (const [name, header] of Object.entries(message.headers)) headers[name] = String(header.value);
    messages.push({ headers, body: toUtf8(message.body) });
    offset += total;
  }
  return messages;
}

/** The events of a recorded stream (event messages only), payloads parsed. */
export function decodeEvents(bytes: Uint8Array): BedrockEvent[] {
  return decodeMessages(bytes)
    .filter((message) => message.headers[":message-type"] === "event")
    .map((message) => ({ type: message.headers[":event-type"] ?? "", payload: JSON.parse(message.body) as Json }));
}
