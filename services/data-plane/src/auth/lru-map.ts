// A Map bounded to `capacity` entries that drops the least recently used one to make room: a Map keeps
// insertion order, and an entry read is moved to the end.
export class LruMap<Key, Value> {
  private readonly entries = new Map<Key, Value>();

  constructor(readonly capacity: number) {}

  get size(): number {
    return this.entries.size;
  }

  /** The value, now the most recently used. */
  get(key: Key): Value | undefined {
    const value = this.entries.get(key);
    if (value !== undefined) {
      this.entries.delete(key);
      this.entries.set(key, value);
    }
    return value;
  }

  set(key: Key, value: Value): void {
    this.entries.delete(key);
    if (this.entries.size >= this.capacity) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, value);
  }

  delete(key: Key): void {
    this.entries.delete(key);
  }

  /** Every entry, least recently used first; reading them does not change their order. */
  [Symbol.iterator](): IterableIterator<[Key, Value]> {
    return this.entries.entries();
  }
}
