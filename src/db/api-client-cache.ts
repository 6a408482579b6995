import { LRUCache } from 'lru-cache';
import { apiClientQueries, type ApiClientRow } from './queries/api-clients';
import { listenWithReconnect, type Listener } from './listen';
import type { Pool } from './pool';

/** The channel a trigger on api_clients notifies with the client id on every update or delete. */
export const API_CLIENTS_CHANNEL = 'broadsheet_api_clients';

/** Backstop: an entry is re-read at least this often even if a notification were lost. */
const TTL_MS = 10_000;
const MAX_ENTRIES = 10_000;

export interface ApiClientLookup {
  findById(id: string): Promise<ApiClientRow | undefined>;
}

/**
 * The process's cache of API clients in front of Postgres, for the lookup every authenticated request makes.
 * Revocation still takes effect at once in every process: the cache LISTENs on one dedicated connection and
 * evicts a client when the trigger on api_clients notifies its id (at the revoking transaction's commit), and
 * a change this process made evicts at once (pool.changes). The cache is used only while that connection is
 * listening; when it drops, everything is forgotten and lookups go to Postgres until LISTEN is back. Expiry is
 * still checked by the caller on every request. It starts listening at the first lookup, so a process that
 * authenticates nothing (workers, CLI) holds no extra connection.
 */
export class ApiClientCache implements ApiClientLookup {
  private readonly entries = new LRUCache<string, ApiClientRow>({ max: MAX_ENTRIES, ttl: TTL_MS });
  /** Bumped by every notification and every lost connection: a read that raced one is not cached. */
  private generation = 0;
  private listener: Listener | undefined;
  private closed = false;
  private readonly onLocalChange = (id: string) => this.forget(id);

  constructor(private readonly pool: Pool) {
    pool.changes.on('apiClient', this.onLocalChange);
  }

  async findById(id: string): Promise<ApiClientRow | undefined> {
    if (!this.closed) this.listener ??= this.listen();
    if (this.listener?.ready) {
      const cached = this.entries.get(id);
      if (cached) return cached;
    }
    const generation = this.generation;
    const row = await apiClientQueries(this.pool).findById(id);
    if (row && this.listener?.ready && generation === this.generation) this.entries.set(id, row);
    return row;
  }

  /** Starts at the first lookup; the cache is used only while the connection listens (listener.ready). */
  private listen(): Listener {
    return listenWithReconnect(this.pool, [API_CLIENTS_CHANNEL], {
      onNotification: (message) => {
        this.generation += 1;
        if (message.payload) this.entries.delete(message.payload);
      },
      onReady: () => {
        this.generation += 1;
      },
      onLost: () => this.forgetAll(),
    });
  }

  /** Drops one client at once, without waiting for its notification (the change was made in this process). */
  forget(id: string): void {
    this.generation += 1;
    this.entries.delete(id);
  }

  async close(): Promise<void> {
    this.closed = true;
    this.pool.changes.off('apiClient', this.onLocalChange);
    const listener = this.listener;
    this.forgetAll();
    await listener?.close();
  }

  private forgetAll(): void {
    this.generation += 1;
    this.entries.clear();
  }
}
