import { LRUCache } from 'lru-cache';
import { mediaQueries, type ServedAssetRow } from './queries/media';
import { listenWithReconnect, type Listener } from './listen';
import type { Pool } from './pool';

/** The channel a trigger on media_entries notifies with the project id (or `*`) on every change. */
export const MEDIA_ENTRIES_CHANNEL = 'broadsheet_media_entries';

/** Backstop: a key is looked up again at least this often even if a notification were lost. */
const TTL_MS = 10_000;
const MAX_ENTRIES = 10_000;

export interface ServedImageLookup {
  /** The entry behind the project's asset key, as mediaQueries().findByAssetKey answers it. */
  findByAssetKey(projectId: number, key: string): Promise<ServedAssetRow | null>;
}

interface Remembered {
  row: ServedAssetRow;
  /** The clock when the lookup that found it started. */
  readAt: number;
}

/**
 * serve-image's lookup of the entry behind an asset key, kept per process for keys that may be served: an image
 * widget asks for the same few images over and over. Only servable answers are kept (a miss, a revoked or an
 * invalid entry always asks Postgres), at most 10,000 of them.
 *
 * A change takes effect at once, in every process: the trigger on media_entries notifies the project's id at
 * commit, and a process forgets every key of that project it kept; a change made in this process does so
 * before it answers (pool.changes). A notification that arrives while a lookup is in flight keeps that lookup's
 * answer out. Keys are kept only while the listening connection is up; when it drops, everything is forgotten
 * and lookups go to Postgres until it is back.
 */
export class ServedImageCache implements ServedImageLookup {
  private readonly entries = new LRUCache<string, Remembered>({ max: MAX_ENTRIES, ttl: TTL_MS });
  /** Advanced by every notification and every loss or gain of the connection. */
  private clock = 0;
  /** Before this, nothing read is trusted (the connection was down, or everything changed). */
  private trustedFrom = 0;
  /** The clock of each project's last change; a project absent changed before trustedFrom, if ever. */
  private readonly changedAt = new Map<number, number>();
  /** Opened by the first lookup, so a process that never serves an image holds no connection. */
  private listener: Listener | undefined;
  private closed = false;
  private readonly onLocalChange = (projectId: number) => this.forgetProject(projectId);

  constructor(private readonly pool: Pool) {
    pool.changes.on('media', this.onLocalChange);
  }

  private get listening(): boolean {
    return this.listener?.ready ?? false;
  }

  private listen(): void {
    if (this.listener !== undefined || this.closed) return;
    this.listener = listenWithReconnect(this.pool, [MEDIA_ENTRIES_CHANNEL], {
      onReady: () => this.forgetAll(),
      onLost: () => this.forgetAll(),
      onNotification: ({ payload = '' }) => {
        const projectId = Number(payload);
        if (Number.isSafeInteger(projectId) && String(projectId) === payload) this.forgetProject(projectId);
        else this.forgetAll();
      },
    });
  }

  async findByAssetKey(projectId: number, key: string): Promise<ServedAssetRow | null> {
    this.listen();
    const id = `${projectId}/${key}`;
    if (this.listening) {
      const kept = this.entries.get(id);
      if (kept !== undefined && this.current(projectId, kept.readAt)) return kept.row;
    }
    const readAt = this.clock;
    const row = await mediaQueries(this.pool).findByAssetKey(projectId, key);
    const servable = row !== null && !row.revoked && !row.invalid;
    if (servable && this.listening && readAt === this.clock) this.entries.set(id, { row, readAt });
    return row;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.pool.changes.off('media', this.onLocalChange);
    await this.listener?.close();
    this.forgetAll();
  }

  private current(projectId: number, readAt: number): boolean {
    return readAt >= this.trustedFrom && readAt >= (this.changedAt.get(projectId) ?? 0);
  }

  private forgetProject(projectId: number): void {
    this.clock += 1;
    this.changedAt.set(projectId, this.clock);
  }

  private forgetAll(): void {
    this.clock += 1;
    this.trustedFrom = this.clock;
    this.changedAt.clear();
    this.entries.clear();
  }
}
