import type pg from 'pg';
import type { Pool } from './pool';

const FIRST_RECONNECT_DELAY_MS = 250;
const MAX_RECONNECT_DELAY_MS = 10_000;
/**
 * How often a ready connection is asked for a round trip, and how long it has to answer before it counts as lost. A
 * connection cut without a close or a reset (a host gone from the network, a failover behind a virtual IP)
 * says nothing to the driver, and an idle connection's TCP keepalive notices after two hours: meanwhile no
 * notification arrived and the caches trusted what they kept. So a loss is noticed within twice this.
 */
export const LISTEN_HEARTBEAT_MS = 5_000;
/** How long closing waits for the server to see the connection end before cutting it. */
const END_TIMEOUT_MS = 1_000;

/**
 * Ends a client's connection. pg's end() waits for the server to close its side, which a silent connection
 * never does: close() hung, and the process's shutdown with it.
 */
async function endClient(client: pg.Client): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const cut = new Promise<void>((resolve) => {
    timer = setTimeout(() => {
      // pg has no public way to drop a connection without the server's answer.
      (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
      resolve();
    }, END_TIMEOUT_MS);
    timer.unref();
  });
  await Promise.race([client.end().catch(() => undefined), cut]);
  clearTimeout(timer);
}

export interface ListenHandlers {
  /** A notification on one of the channels (whether or not the connection is ready yet). */
  onNotification(message: pg.Notification): void;
  /**
   * After LISTEN, before the connection counts as ready: reads what notifications sent before it would have
   * said (they are not replayed). Notifications that arrive meanwhile are delivered too. Throwing counts as
   * the connection lost.
   */
  onListening?(client: pg.Client): Promise<void>;
  /** The connection listens and onListening is done: whatever is kept from now on is kept up to date. */
  onReady?(): void;
  /** The connection was lost (or could not be opened): what was kept on its word may be stale now. */
  onLost?(): void;
}

export interface Listener {
  /** The connection listens and is ready: notifications reach the handlers. */
  readonly ready: boolean;
  /** Stops for good: no reconnect, the connection ended. */
  close(): Promise<void>;
}

/**
 * LISTENs on `channels` over one dedicated connection (the pool's settings and connect timeout, outside the
 * pool), and when that connection drops or cannot be opened, tells the caller (onLost) and opens a new one
 * after 250 ms, doubling up to 10 s while it keeps failing. Notifications sent while no connection listens
 * are lost: a caller forgets what it kept on their word at onLost and trusts nothing again until onReady.
 * A ready connection that does not answer its heartbeat (a LISTEN it holds) within LISTEN_HEARTBEAT_MS counts as lost too.
 */
export function listenWithReconnect(
  pool: Pool,
  channels: readonly string[],
  handlers: ListenHandlers,
): Listener {
  for (const channel of channels) {
    if (!/^[a-z_][a-z0-9_]*$/.test(channel)) throw new Error(`Not a channel name: ${channel}`);
  }
  const last = channels.at(-1);
  const heartbeatQuery = last === undefined ? 'SELECT 1' : `LISTEN ${last}`;
  let current: pg.Client | undefined;
  let ready = false;
  let closed = false;
  let failures = 0;
  let timer: NodeJS.Timeout | undefined;

  const scheduleReconnect = () => {
    if (closed) return;
    clearTimeout(timer);
    const delay = Math.min(MAX_RECONNECT_DELAY_MS, FIRST_RECONNECT_DELAY_MS * 2 ** failures);
    failures += 1;
    timer = setTimeout(() => void connect(), delay);
    timer.unref();
  };

  const connect = async () => {
    if (closed) return;
    const client = pool.dedicatedClient({ keepAlive: true });
    let lost = false;
    // Started once ready; onLost may run before (a connection that could not be opened).
    const heartbeat: { timer?: NodeJS.Timeout; beating: boolean } = { beating: false };
    const onLost = () => {
      if (lost) return;
      lost = true;
      clearInterval(heartbeat.timer);
      if (current === client) {
        current = undefined;
        ready = false;
      }
      handlers.onLost?.();
      void endClient(client);
      scheduleReconnect();
    };
    client.on('error', onLost);
    client.on('end', onLost);
    client.on('notification', (message) => {
      if (!lost && channels.includes(message.channel)) handlers.onNotification(message);
    });
    try {
      await client.connect();
      for (const channel of channels) await client.query(`LISTEN ${channel}`);
      current = client;
      await handlers.onListening?.(client);
    } catch {
      onLost();
      return;
    }
    if (closed || lost) {
      await endClient(client);
      return;
    }
    failures = 0;
    handlers.onReady?.();
    ready = true;
    heartbeat.timer = setInterval(() => {
      if (heartbeat.beating || lost) return;
      heartbeat.beating = true;
      const deadline = setTimeout(onLost, LISTEN_HEARTBEAT_MS);
      deadline.unref();
      // A LISTEN it already holds: a no-op round trip, and pg_stat_activity still shows what the connection is.
      client.query(heartbeatQuery).then(
        () => {
          heartbeat.beating = false;
          clearTimeout(deadline);
        },
        () => {
          clearTimeout(deadline);
          onLost();
        },
      );
    }, LISTEN_HEARTBEAT_MS);
    heartbeat.timer.unref();
  };

  void connect();
  return {
    get ready() {
      return ready && current !== undefined;
    },
    async close() {
      closed = true;
      clearTimeout(timer);
      const client = current;
      current = undefined;
      ready = false;
      if (client) await endClient(client);
    },
  };
}
