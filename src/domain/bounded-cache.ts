/**
 * Remembers up to `capacity` computed values by key and forgets the oldest first: for pure work on inputs
 * that repeat (a widget sends the same query string many times a second), bounded so that inputs that never
 * repeat (cursors, id ranges) cannot grow it.
 */
export class BoundedCache<K, V> {
  private readonly entries = new Map<K, V>();

  constructor(private readonly capacity: number) {}

  get(key: K, compute: () => V): V {
    const known = this.entries.get(key);
    if (known !== undefined || this.entries.has(key)) return known as V;
    const value = compute();
    if (this.entries.size >= this.capacity) {
      // A Map iterates in insertion order: the first key is the oldest.
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    this.entries.set(key, value);
    return value;
  }

  get size(): number {
    return this.entries.size;
  }
}
