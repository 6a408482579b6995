import { LRUCache } from 'lru-cache';
import pg from 'pg';
import { apiClientQueries, type ApiClientRow } from './queries/api-clients';
import type { Pool } from './pool';

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
  private listener: pg.Client | undefined;
  private started = false;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private failures = 0;
  private closed = false;
  private readonly onLocalChange = (id: string) => this.forget(id);

  constructor(private readonly pool: Pool) {
    pool.changes.on('apiClient', this.onLocalChange);
  }

  async findById(id: string): Promise<ApiClientRow | undefined> {
    if (!this.started) {
      this.started = true;
      void this.listen();
    }
    if (this.listener) {
      const cached = this.entries.get(id);
      if (cached) return cached;
    }
    const generation = this.generation;
    const row = await apiClientQueries(this.pool).findById(id);
    if (row && this.listener && generation === this.generation) this.entries.set(id, row);
    return row;
  }

  /** Drops one client at once, without waiting for its notification (the change was made in this process). */
  forget(id: string): void {
    this.generation += 1;
    this.entries.delete(id);
  }

  async close(): Promise<void> {
    this.closed = true;
    this.pool.changes.off('apiClient', this.onLocalChange);
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
    const client = this.pool.dedicatedClient({ keepAlive: true });
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
