import pg from 'pg';
import type { Pool } from './pool';

const MAX_RECONNECT_DELAY_MS = 10_000;

export interface ListenerEvents {
  /** LISTEN took effect: from now on every notification of the channel arrives. */
  listening(): void;
  /** The connection dropped (or never came up): notifications may be missed until `listening` again. */
  lost(): void;
  /** One notification's payload (empty string when it had none). */
  notification(payload: string): void;
}

/**
 * One dedicated connection LISTENing on one channel for a cache, with reconnects (backoff up to 10 s). A cache
 * trusts what it keeps only between `listening` and `lost`: a notification missed while the connection was down
 * cannot be told apart from none. Started by `start`, so a process that never needs the cache holds no
 * connection.
 */
export class NotificationListener {
  private client: pg.Client | undefined;
  private started = false;
  private closed = false;
  private failures = 0;
  private reconnectTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly pool: Pool,
    private readonly channel: string,
    private readonly events: ListenerEvents,
  ) {
    if (!/^[a-z_][a-z0-9_]*$/.test(channel)) throw new Error(`not a plain channel name: ${channel}`);
  }

  /** Whether notifications are arriving now. */
  get listening(): boolean {
    return this.client !== undefined;
  }

  /** Starts listening once (later calls do nothing). */
  start(): void {
    if (this.started) return;
    this.started = true;
    void this.listen();
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.reconnectTimer);
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }

  private async listen(): Promise<void> {
    if (this.closed) return;
    const client = new pg.Client({ ...this.pool.options, keepAlive: true });
    let lost = false;
    const onLost = () => {
      if (lost) return;
      lost = true;
      if (this.client === client) {
        this.client = undefined;
        this.events.lost();
      }
      void client.end().catch(() => undefined);
      this.scheduleReconnect();
    };
    client.on('error', onLost);
    client.on('end', onLost);
    client.on('notification', (message) => {
      if (message.channel === this.channel) this.events.notification(message.payload ?? '');
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${this.channel}`);
    } catch {
      onLost();
      return;
    }
    if (this.closed || lost) {
      await client.end().catch(() => undefined);
      return;
    }
    this.failures = 0;
    this.client = client;
    this.events.listening();
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
