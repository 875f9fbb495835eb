// Where conversations are pinned (docs/routing.md, "Affinity"): the model, access path and key group
// that answered a conversation's last turn, for as long as the provider keeps its prompt cache. Every
// data plane shares them through Redis (a load balancer spreads a conversation's turns), each keeping a
// local copy, so a conversation costs one Redis round trip per data plane, on its first turn there.
// Redis slow or away loses stickiness, never a request: the limiter's circuit rules (redis-circuit.ts).
import type { Redis } from "ioredis";
import { failFastRedis, inTime, REDIS_TIMEOUT_MS, RedisCircuit } from "../redis-circuit";

export interface Pin {
  model: string;
  /** The access path's provider name. */
  provider: string;
  upstreamModel: string;
  /** The key group (provider account) whose key answered, where the prompt is cached; absent for a path without a pool. */
  group?: string;
}

export interface PinStore {
  /** The conversation's live pin: this data plane's copy, else (first turn here) the shared one. */
  get(key: string): Pin | undefined | Promise<Pin | undefined>;
  /**
   * After an answer: the conversation is pinned to `pin` for `ttlMs` more. `kept`: the turn followed
   * the pin it had; then a pin another data plane has set meanwhile is not overwritten but learnt.
   */
  put(key: string, pin: Pin, ttlMs: number, kept: boolean): void;
  readonly mode: string;
  close(): Promise<void>;
}

/** Conversations a data plane remembers; the least recently used go first. */
export const LOCAL_PINS = 100_000;
/**
 * A kept pin is written to Redis again (its lifetime extended there) at most this often per data plane;
 * that write is also where a data plane learns that another moved the conversation.
 */
export const PIN_REFRESH_MS = 15_000;

// The group is a fourth line, only when there is one: a data plane from before groups reads the first three.
const encode = (pin: Pin) => `${pin.model}\n${pin.provider}\n${pin.upstreamModel}${pin.group ? `\n${pin.group}` : ""}`;
function decode(value: unknown): Pin | undefined {
  if (typeof value !== "string") return undefined;
  const [model, provider, upstreamModel, group] = value.split("\n");
  if (!model || !provider || upstreamModel === undefined) return undefined;
  return group ? { model, provider, upstreamModel, group } : { model, provider, upstreamModel };
}

interface LocalPin {
  pin: Pin;
  expiresAt: number;
  /** When this data plane last wrote it to Redis (RedisPins), if it did. */
  writtenAt?: number;
}

/** This data plane's pins: bounded, least recently used evicted, each dropped at its expiry. */
export class LocalPins implements PinStore {
  private readonly pins = new Map<string, LocalPin>();
  readonly mode: string = "local";

  constructor(
    private readonly capacity = LOCAL_PINS,
    private readonly now: () => number = Date.now,
  ) {}

  get(key: string): Pin | undefined {
    const entry = this.pins.get(key);
    if (!entry) return undefined;
    this.pins.delete(key);
    if (entry.expiresAt <= this.now()) return undefined;
    this.pins.set(key, entry); // most recently used last
    return entry.pin;
  }

  put(key: string, pin: Pin, ttlMs: number, _kept?: boolean, writtenAt?: number): void {
    this.pins.delete(key);
    this.pins.set(
      key,
      writtenAt === undefined ? { pin, expiresAt: this.now() + ttlMs } : { pin, expiresAt: this.now() + ttlMs, writtenAt },
    );
    if (this.pins.size > this.capacity) this.pins.delete(this.pins.keys().next().value!);
  }

  /** The entry as held, live or not, without touching its place in the eviction order. */
  peek(key: string): Readonly<LocalPin> | undefined {
    return this.pins.get(key);
  }

  async close(): Promise<void> {}
}

// The pin and its time left, in one round trip.
const GET_SCRIPT = `
local value = redis.call('GET', KEYS[1])
if not value then return false end
return {value, redis.call('PTTL', KEYS[1])}`;

// Keeps a pin going (its lifetime slides), unless another data plane has moved the conversation
// meanwhile: then that pin is answered, for this data plane to follow. A moved pin is set as is.
const PUT_SCRIPT = `
local current = redis.call('GET', KEYS[1])
if ARGV[3] == '1' and current and current ~= ARGV[1] then return {current, redis.call('PTTL', KEYS[1])} end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return false`;

type PinScript = (key: string, ...args: (string | number)[]) => Promise<[string, number] | null>;

/** Pins shared through Redis, with this data plane's copy in front. */
export class RedisPins implements PinStore {
  private readonly local: LocalPins;
  private readonly redis: Redis;
  private readonly circuit: RedisCircuit;
  /** Lookups answered by Redis, and those given up (late or failed): a test's and a metric's view. */
  readonly stats = { lookups: 0, missed: 0 };

  constructor(
    url: string,
    /** How often a kept pin is written again; a move another data plane made is learnt from that write. */
    private readonly refreshMs = PIN_REFRESH_MS,
    capacity = LOCAL_PINS,
  ) {
    this.local = new LocalPins(capacity);
    this.redis = failFastRedis(url, { autoPipelining: true });
    this.circuit = new RedisCircuit(() => this.redis.ping());
    this.redis.on("error", () => this.circuit.trip());
    this.redis.defineCommand("gatewayPinGet", { numberOfKeys: 1, lua: GET_SCRIPT });
    this.redis.defineCommand("gatewayPinPut", { numberOfKeys: 1, lua: PUT_SCRIPT });
  }

  get mode(): string {
    if (this.circuit.open) return "local (Redis unreachable or late: conversations keep to this data plane's pins)";
    return this.redis.status === "ready" ? "redis" : "local (connecting to Redis)";
  }

  /** Redis may be asked: its circuit is closed and its connection up (one not up yet is no failure to trip on). */
  private get usable(): boolean {
    return !this.circuit.open && this.redis.status === "ready";
  }

  get(key: string): Pin | undefined | Promise<Pin | undefined> {
    return this.local.get(key) ?? (this.usable ? this.fetch(key) : undefined);
  }

  private async fetch(key: string): Promise<Pin | undefined> {
    const sentAt = performance.now();
    try {
      const answer = await inTime(this.script("gatewayPinGet")(redisKey(key)), () => sentAt + REDIS_TIMEOUT_MS);
      this.stats.lookups++;
      return this.learn(key, answer);
    } catch {
      this.stats.missed++;
      this.circuit.trip();
      return undefined;
    }
  }

  put(key: string, pin: Pin, ttlMs: number, kept: boolean): void {
    const now = Date.now();
    const held = this.local.peek(key);
    // A kept pin this data plane wrote lately is still in Redis with most of its life: not written again
    // on every turn. The sliding lifetime in Redis trails by at most the refresh interval.
    const refreshMs = Math.min(ttlMs / 4, this.refreshMs);
    if (kept && held?.writtenAt !== undefined && now - held.writtenAt < refreshMs && encode(held.pin) === encode(pin)) {
      this.local.put(key, pin, ttlMs, kept, held.writtenAt);
      return;
    }
    if (!this.usable) {
      this.local.put(key, pin, ttlMs);
      return;
    }
    this.local.put(key, pin, ttlMs, kept, now);
    // Off the answer's path: a late write only loses stickiness, and trips the circuit for the next ones.
    const sentAt = performance.now();
    inTime(this.script("gatewayPinPut")(redisKey(key), encode(pin), ttlMs, kept ? "1" : "0"), () => sentAt + REDIS_TIMEOUT_MS).then(
      (answer) => this.learn(key, answer),
      () => this.circuit.trip(),
    );
  }

  /** A pin Redis answered with: this data plane's copy until it expires there. */
  private learn(key: string, answer: [string, number] | null): Pin | undefined {
    const pin = answer ? decode(answer[0]) : undefined;
    if (pin && answer![1] > 0) this.local.put(key, pin, answer![1]);
    return pin;
  }

  private script(name: "gatewayPinGet" | "gatewayPinPut"): PinScript {
    return (this.redis as unknown as Record<string, PinScript>)[name]!.bind(this.redis);
  }

  async close(): Promise<void> {
    this.circuit.stop();
    this.redis.disconnect();
  }
}

const redisKey = (key: string) => `gateway:pin:${key}`;
