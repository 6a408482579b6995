import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import { LISTEN_HEARTBEAT_MS, listenWithReconnect, type Listener } from '../../src/db/listen';
import { createPool, type Pool } from '../../src/db/pool';
import { eventually } from '../helpers/http';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy';

/**
 * listenWithReconnect against the run's Postgres: notifications reach the handler while it listens; when the
 * server ends its connection (pg_terminate_backend, as a restart or a failover does), the caller is told and
 * it listens again by itself, reading what it missed before it counts as ready.
 */
describe('listenWithReconnect', () => {
  let pool: Pool;
  let listener: Listener | undefined;
  const channel = `test_listen_${randomBytes(4).toString('hex')}`;
  const received: string[] = [];
  const events: string[] = [];

  beforeAll(() => {
    pool = createPool(process.env.DATABASE_URL ?? '', 2);
  });
  afterAll(async () => {
    await listener?.close();
    await pool.end();
  });

  const notify = (payload: string) => pool.query('SELECT pg_notify($1, $2)', [channel, payload]);
  /** The listening connections' server processes, as each read on listening. */
  const pids: number[] = [];
  const alive = async (pid: number) =>
    (await pool.query('SELECT 1 FROM pg_stat_activity WHERE pid = $1', [pid])).rowCount === 1;

  it('when it listens, then notifications on its channel reach the handler, after what it read on listening', async () => {
    listener = listenWithReconnect(pool, [channel], {
      onNotification: (message: pg.Notification) => received.push(message.payload ?? ''),
      onListening: async (client) => {
        const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
        pids.push(rows[0]!.pid);
        events.push('listening');
      },
      onReady: () => events.push('ready'),
      onLost: () => events.push('lost'),
    });
    await eventually(() => Promise.resolve(listener!.ready), 5_000, 20);
    await notify('first');
    await eventually(() => Promise.resolve(received.includes('first')), 5_000, 20);
    expect(events).toEqual(['listening', 'ready']);
  });

  it('when the server terminates its connection, then it reports the loss and listens again by itself', async () => {
    const pid = pids[0];
    expect(await alive(pid!)).toBe(true);
    await pool.query('SELECT pg_terminate_backend($1)', [pid]);
    await eventually(() => Promise.resolve(events.includes('lost')), 5_000, 20);
    await eventually(() => Promise.resolve(listener!.ready), 10_000, 20);
    expect(events).toEqual(['listening', 'ready', 'lost', 'listening', 'ready']);
    expect(pids).toHaveLength(2);
    expect(pids[1]).not.toBe(pid);
    expect(await alive(pids[1]!)).toBe(true);
    await notify('second');
    await eventually(() => Promise.resolve(received.includes('second')), 5_000, 20);
    expect(received).toEqual(['first', 'second']);
  });

  it('when closed, then it stops listening and does not come back', async () => {
    await listener!.close();
    expect(listener!.ready).toBe(false);
    await eventually(async () => !(await alive(pids[1]!)), 5_000, 50);
    // Past the first reconnect delay (250 ms): nothing listens again.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(pids).toHaveLength(2);
    expect(listener!.ready).toBe(false);
  });
});

/**
 * The listening connection cut without a close or a reset (the database host gone from the network, a failover
 * behind a virtual IP): nothing tells the driver, and an idle connection's TCP keepalive notices after two
 * hours. Meanwhile the caches trusted a connection that delivered no notification.
 */
describe('listenWithReconnect when its connection goes silent', () => {
  let proxy: TcpProxy;
  let pool: Pool;
  let listener: Listener | undefined;
  const channel = `test_listen_${randomBytes(4).toString('hex')}`;
  const events: string[] = [];

  beforeAll(async () => {
    const direct = new URL(process.env.DATABASE_URL ?? '');
    proxy = await startTcpProxy(`postgres://${direct.host}`);
    const proxied = new URL(direct);
    proxied.port = new URL(proxy.url).port;
    pool = createPool(proxied.toString(), 2);
  });
  afterAll(async () => {
    await listener?.close();
    await proxy.close();
    await pool.end().catch(() => undefined);
  });

  it('then it reports the loss within seconds, and listens again once the server is back', async () => {
    listener = listenWithReconnect(pool, [channel], {
      onNotification: () => undefined,
      onReady: () => events.push('ready'),
      onLost: () => events.push('lost'),
    });
    await eventually(() => Promise.resolve(listener!.ready), 5_000, 20);
    await proxy.down('stall');
    const stalled = Date.now();
    await eventually(() => Promise.resolve(!listener!.ready), 20_000, 50);
    // Within two heartbeats (one to start, one to time out), with room for a loaded machine.
    expect(Date.now() - stalled).toBeLessThan(LISTEN_HEARTBEAT_MS * 2 + 3_000);
    expect(events).toEqual(['ready', 'lost']);
    await proxy.up();
    await eventually(() => Promise.resolve(listener!.ready), 20_000, 50);
    expect(events.at(-1)).toBe('ready');
  });

  it('when closed while its connection is silent, then it closes at once all the same', async () => {
    const silent = listenWithReconnect(pool, [channel], { onNotification: () => undefined });
    await eventually(() => Promise.resolve(silent.ready), 5_000, 20);
    await proxy.down('stall');
    const closing = Date.now();
    await silent.close();
    expect(Date.now() - closing).toBeLessThan(3_000);
    expect(silent.ready).toBe(false);
    await proxy.up();
  });
});
