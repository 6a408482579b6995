import pg from 'pg';
import { apiClientQueries, type ApiClientRow } from './queries/api-clients';
import type { Queryable } from './pool';

/** The channel a trigger on api_clients notifies with the client id on every update or delete. */
export const API_CLIENTS_CHANNEL = 'broadsheet_api_clients';

/** Backstop: an entry is re-read at least this often even if a notification were lost. */
const TTL_MS = 10_000;
const MAX_ENTRIES = 10_000;
const MAX_RECONNECT_DELAY_MS = 10_000;

export interface ApiClientLookup {
  findById(id: string): Promise<ApiClientRow | undefined>;
}

/**
 * A per-process cache of API clients in front of Postgres, for the lookup every authenticated request makes.
 * Revocation still takes effect at once in every process: each process LISTENs on one dedicated connection
 * and evicts a client when the trigger on api_clients notifies its id (at the revoking transaction's commit).
 * The cache is used only while that connection is listening; when it drops, everything is forgotten and
 * lookups go to Postgres until LISTEN is back. Expiry is still checked by the caller on every request.
 */
class ListeningApiClientCache implements ApiClientLookup {
  private readonly entries = new Map<string, { row: ApiClientRow; at: number }>();
  /** Bumped by every notification and every lost connection: a read that raced one is not cached. */
  private generation = 0;
  private listener: pg.Client | undefined;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private failures = 0;
  private closed = false;

  constructor(
    private readonly db: Queryable,
    private readonly connection: pg.ClientConfig,
  ) {
    void this.listen();
  }

  async findById(id: string): Promise<ApiClientRow | undefined> {
    if (this.listener) {
      const cached = this.entries.get(id);
      if (cached && Date.now() - cached.at < TTL_MS) return cached.row;
    }
    const generation = this.generation;
    const row = await apiClientQueries(this.db).findById(id);
    if (row && this.listener && generation === this.generation) {
      if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
      this.entries.set(id, { row, at: Date.now() });
    }
    return row;
  }

  /** Drops one client at once, without waiting for its notification (the change was made in this process). */
  forget(id: string): void {
    this.generation += 1;
    this.entries.delete(id);
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.reconnectTimer);
    const listener = this.listener;
    this.forgetAll();
    await listener?.end().catch(() => undefined);
  }

  private forgetAll(): void {
    this.listener = undefined;
    this.generation += 1;
    this.entries.clear();
  }

  private async listen(): Promise<void> {
    if (this.closed) return;
    const client = new pg.Client({ ...this.connection, keepAlive: true });
    let lost = false;
    const onLost = () => {
      if (lost) return;
      lost = true;
      if (this.listener === client) this.forgetAll();
      void client.end().catch(() => undefined);
      this.scheduleReconnect();
    };
    client.on('error', onLost);
    client.on('end', onLost);
    client.on('notification', (message) => {
      if (message.channel !== API_CLIENTS_CHANNEL) return;
      this.generation += 1;
      if (message.payload) this.entries.delete(message.payload);
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${API_CLIENTS_CHANNEL}`);
    } catch {
      onLost();
      return;
    }
    if (this.closed || lost) {
      await client.end().catch(() => undefined);
      return;
    }
    this.failures = 0;
    this.generation += 1;
    this.listener = client;
  }

  private scheduleReconnect(): void {
    if (this.closed) return;
    clearTimeout(this.reconnectTimer);
    const delay = Math.min(MAX_RECONNECT_DELAY_MS, 250 * 2 ** this.failures);
    this.failures += 1;
    this.reconnectTimer = setTimeout(() => void this.listen(), delay);
    this.reconnectTimer.unref();
  }
}

const caches = new WeakMap<object, ListeningApiClientCache>();

/**
 * The process's cache for this pool (one listener per pool however many route files authenticate), or the
 * plain query when `db` is not a pool (a transaction client has no connection settings to listen with).
 */
export function apiClientLookup(db: Queryable): ApiClientLookup {
  if (!(db instanceof pg.Pool)) return apiClientQueries(db);
  let cache = caches.get(db);
  if (!cache) {
    cache = new ListeningApiClientCache(db, db.options);
    caches.set(db, cache);
  }
  return cache;
}

/**
 * Evicts a client this process just changed. Other processes evict it when the trigger's notification
 * arrives, milliseconds after the commit; this process must not serve a request from the old entry even
 * for that long, so that a revocation is refused by the very next request.
 */
export function forgetApiClient(db: Queryable, id: string): void {
  caches.get(db)?.forget(id);
}

/** Stops the pool's listener, if one was started; call before ending the pool. */
export async function closeApiClientLookup(db: Queryable): Promise<void> {
  const cache = caches.get(db);
  caches.delete(db);
  await cache?.close();
}
