import { createPool, isDatabaseUnavailable, type Pool } from '../../src/db/pool';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy';

/**
 * The pool's two waits, against the run's Postgres: a request waits in line for a free connection of a busy
 * pool (the server answers; a load spike is queued), bounded by the pool wait; opening a new connection to a
 * server that does not answer fails at the shorter connect timeout.
 */
describe('the database pool under load and when Postgres does not answer', () => {
  const url = process.env.DATABASE_URL ?? '';
  const pools: Pool[] = [];
  const poolOf = (connectTimeoutMs: number, poolWaitMs: number, target = url) => {
    const pool = createPool(target, 1, { connectTimeoutMs, poolWaitMs, queryTimeoutMs: 10_000 });
    pools.push(pool);
    return pool;
  };
  afterAll(async () => {
    await Promise.all(pools.map((pool) => pool.end()));
  });

  it('when every connection is busy for longer than the connect timeout, then a request waits in line and gets its answer', async () => {
    const pool = poolOf(200, 10_000);
    const busy = pool.query('SELECT pg_sleep(1)');
    // Queued behind the only connection, which answers after a second: five times the connect timeout.
    const queued = pool.query<{ one: number }>('SELECT 1 AS one');
    await busy;
    expect((await queued).rows).toEqual([{ one: 1 }]);
  });

  it('when every connection stays busy past the pool wait, then the waiting request fails as the database being unavailable', async () => {
    const pool = poolOf(200, 500);
    const busy = pool.query('SELECT pg_sleep(2)');
    const queued = pool.query('SELECT 1').catch((error: unknown) => error);
    const error = await queued;
    expect(isDatabaseUnavailable(error)).toBe(true);
    expect((error as Error).message).toBe('timeout exceeded when trying to connect');
    await busy;
  });

  describe('when Postgres accepts connections and never answers', () => {
    let proxy: TcpProxy;
    beforeAll(async () => {
      const target = new URL(url);
      proxy = await startTcpProxy(`http://${target.hostname}:${target.port || 5432}`);
      await proxy.down('hang');
    });
    afterAll(async () => {
      await proxy.close();
    });

    it('then opening a connection fails at the connect timeout, not after the pool wait', async () => {
      const proxied = new URL(url);
      proxied.host = new URL(proxy.url).host;
      const pool = poolOf(300, 60_000, proxied.toString());
      const error = await pool.query('SELECT 1').catch((caught: unknown) => caught);
      expect(isDatabaseUnavailable(error)).toBe(true);
      // The client's own connect timeout cut it (the pool's would say 'timeout exceeded ...' after 60 s).
      expect((error as Error).message).toBe('timeout expired');
    });
  });
});
