import { LRUCache } from 'lru-cache';
import type { ObjectStore, SmallObject, StoredObjectInfo } from './object-store';

/**
 * How long a small object stays in memory at most. The app never rewrites a key (each asset gets a new random
 * one) and a put or delete through this process drops its key at once, so this only bounds how long another
 * process's delete of bytes that an entry still names (an inconsistency) goes unseen.
 */
export const RECENT_TTL_MS = 5 * 60_000;

/**
 * The process's object store with the small objects it recently read whole (getSmall) kept in memory, up to
 * `maxBytes` in all (MEDIA_CACHE_MB): serve-image answers a hot image without a read from the folder or a round
 * trip to S3. head answers from memory too (the 304 of a revalidation). Ranged reads and large objects go to the
 * store. Whoever may see the image is still decided per request, before the store is asked (the entry check).
 */
export class RecentObjects implements ObjectStore {
  private readonly recent: LRUCache<string, { info: StoredObjectInfo; bytes: Buffer }>;
  /** Advanced by every put and delete: a read that raced one is not kept. */
  private writes = 0;

  constructor(
    readonly store: ObjectStore,
    maxBytes: number,
  ) {
    this.recent = new LRUCache({
      maxSize: maxBytes,
      sizeCalculation: (entry) => entry.bytes.length + 1024,
      ttl: RECENT_TTL_MS,
    });
  }

  async put(
    key: string,
    body: Buffer | NodeJS.ReadableStream,
    info: { contentType: string; size?: number },
  ): Promise<StoredObjectInfo> {
    this.forget(key);
    try {
      return await this.store.put(key, body, info);
    } finally {
      this.forget(key);
    }
  }

  async head(key: string): Promise<StoredObjectInfo | null> {
    return this.recent.get(key)?.info ?? (await this.store.head(key));
  }

  get(
    key: string,
    range?: { start: number; end: number },
  ): Promise<{ info: StoredObjectInfo; body: NodeJS.ReadableStream } | null> {
    return this.store.get(key, range);
  }

  async getSmall(key: string, maxBytes: number): Promise<SmallObject | null> {
    const kept = this.recent.get(key);
    if (kept !== undefined && kept.bytes.length <= maxBytes) return { info: kept.info, bytes: kept.bytes };
    const writes = this.writes;
    const got = await this.store.getSmall(key, maxBytes);
    if (got !== null && 'bytes' in got && writes === this.writes) this.recent.set(key, got);
    return got;
  }

  async delete(key: string): Promise<void> {
    this.forget(key);
    try {
      await this.store.delete(key);
    } finally {
      this.forget(key);
    }
  }

  private forget(key: string): void {
    this.writes += 1;
    this.recent.delete(key);
  }
}
