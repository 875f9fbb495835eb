// Pools of provider keys for tests: `{ OPENAI_API_KEY: "sk-1" }` is a pool of one, as the variable alone
// configures; a list is a pool of several, each key of weight 1 and its own group.
import { buildKeyPools, type KeyPool, type KeyPoolOptions } from "../../src/providers/key-pool/key-pool";
import { parseKeyPools } from "../../src/providers/key-pool/key-pool-settings";

export const TEST_POOL_OPTIONS: KeyPoolOptions = { now: Date.now, cooldownMs: 10_000, refusalMs: 600_000, replicas: () => 1 };

/** Pools by variable, from the variables' values as the environment would give them (`<NAME>_API_KEYS` for lists). */
export function keyPools(keys: Record<string, string | string[]>, options: Partial<KeyPoolOptions> = {}): Map<string, KeyPool> {
  const env = Object.fromEntries(
    Object.entries(keys).map(([variable, value]) => (Array.isArray(value) ? [`${variable}S`, value.join(",")] : [variable, value])),
  );
  return buildKeyPools(parseKeyPools(env), { ...TEST_POOL_OPTIONS, ...options });
}
