import dns from 'node:dns';
import { createPool, isDatabaseUnavailable, type Pool } from '../../src/db/pool';
import { translateError } from '../../src/http/middleware/errors';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy';

/**
 * The pool's two waits, against the run's Postgres: a request waits in line for a free connection of a busy
 * pool (the server answers; a load spike is queued), bounded by the pool wait; opening a new connection to a
 * server that does not answer fails at the shorter connect timeout.
 */
describe('the database pool under load and when Postgres does not answer', () => {
  const url = process.env.DATABASE_URL ?? '';
  const pools: Pool[] = [];
  const poolOf = (connectTimeoutMs: number, poolWaitMs: number, target = url, queryTimeoutMs = 10_000) => {
    const pool = createPool(target, 1, { connectTimeoutMs, poolWaitMs, queryTimeoutMs });
    pools.push(pool);
    return pool;
  };
  afterAll(async () => {
    await Promise.all(pools.map((pool) => pool.end()));
  });

  it('when every connection is busy for longer than the connect timeout, then a request waits in line and gets its answer', async () => {
    // The connect timeout bounds opening the pool's one connection too: 1 s, not less, so a loaded machine's
    // slow connect (over 200 ms in a clean-clone CI run) does not fail what this test is not about.
    const pool = poolOf(1000, 10_000);
    const busy = pool.query('SELECT pg_sleep(3)');
    // Queued behind the only connection, which answers after three seconds: three times the connect timeout.
    const queued = pool.query<{ one: number }>('SELECT 1 AS one');
    await busy;
    expect((await queued).rows).toEqual([{ one: 1 }]);
  });

  it('when every connection stays busy past the pool wait, then the waiting request fails as the database being unavailable', async () => {
    const pool = poolOf(1000, 500);
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

  /** What a request that needed the database would be answered, from the error its query got. */
  const answerTo = (error: unknown) => {
    const translated = translateError(error);
    return {
      status: translated?.status,
      name: translated?.details.name,
      retryAfter: translated?.retryAfterSeconds,
    };
  };
  const unavailable = { status: 503, name: 'DatabaseUnavailable', retryAfter: 5 };

  /**
   * DATABASE_QUERY_TIMEOUT_MS bounds how long a query's connection may stay silent, not how long its answer
   * takes: the whole-query bound failed a large read still streaming in (100 documents of a megabyte on a busy
   * API process) as the database being unavailable.
   */
  describe('when the query timeout is 1 s', () => {
    const queryTimeoutMs = 1_000;
    let proxy: TcpProxy;
    let proxied: string;
    beforeAll(async () => {
      const target = new URL(url);
      proxy = await startTcpProxy(`http://${target.hostname}:${target.port || 5432}`);
      const viaProxy = new URL(url);
      viaProxy.host = new URL(proxy.url).host;
      proxied = viaProxy.toString();
    });
    afterAll(async () => {
      await proxy.close();
    });

    it('then an answer whose rows keep arriving for 3 s (one every 250 ms) is read whole', async () => {
      const pool = poolOf(5_000, 5_000, url, queryTimeoutMs);
      const started = performance.now();
      // Rows of 20 kB each leave Postgres's 8 kB send buffer as they are made, one every 250 ms.
      const result = await pool.query<{ n: number; text: string }>(
        `SELECT n, repeat('x', 20000) || pg_sleep(0.25)::text AS text FROM generate_series(1, 12) AS n`,
      );
      expect(performance.now() - started).toBeGreaterThan(3 * queryTimeoutMs - 100);
      expect(result.rows.map(({ n, text }) => [n, text.length])).toEqual(
        Array.from({ length: 12 }, (_, i) => [i + 1, 20000]),
      );
    });

    it('then a query on a connection that falls silent (no close, no reset) fails within it as the database being unavailable: 503 with Retry-After', async () => {
      const pool = poolOf(5_000, 5_000, proxied, queryTimeoutMs);
      // A connection open and working, then the host gone from the network.
      await pool.query('SELECT 1');
      await proxy.down('stall');
      const started = performance.now();
      const error = await pool.query('SELECT 1').catch((caught: unknown) => caught);
      const waited = performance.now() - started;
      expect((error as Error).message).toMatch(/^Query read timeout/);
      expect(answerTo(error)).toEqual(unavailable);
      expect(waited).toBeGreaterThanOrEqual(queryTimeoutMs - 50);
      expect(waited).toBeLessThan(queryTimeoutMs + 3_000);
      // Once the route is back, the pool serves again.
      await proxy.up();
      expect((await pool.query<{ one: number }>('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    });
  });

  it('when the route to Postgres is gone (ENETUNREACH), then a query fails as the database being unavailable: 503 with Retry-After', async () => {
    const unroutable = new URL(url);
    // The kernel has no route for a TCP connection to the limited broadcast address: connect ENETUNREACH.
    unroutable.hostname = '255.255.255.255';
    const error = await poolOf(2_000, 2_000, unroutable.toString())
      .query('SELECT 1')
      .catch((caught: unknown) => caught);
    expect((error as { code?: unknown }).code).toBe('ENETUNREACH');
    expect(answerTo(error)).toEqual(unavailable);
  });

  describe("when the DNS server cannot answer for Postgres's host name for a moment (EAI_AGAIN)", () => {
    const host = 'postgres.broadsheet.test';
    let lookup: jest.SpiedFunction<typeof dns.lookup>;
    beforeAll(() => {
      // Node's resolver answers EAI_AGAIN when the DNS server times out or answers SERVFAIL: a failure for now.
      lookup = jest.spyOn(dns, 'lookup').mockImplementation((hostname: string, ...rest: unknown[]) => {
        const callback = rest[rest.length - 1] as (error: NodeJS.ErrnoException) => void;
        const error = Object.assign(new Error(`getaddrinfo EAI_AGAIN ${hostname}`), {
          code: 'EAI_AGAIN',
          syscall: 'getaddrinfo',
          hostname,
        });
        process.nextTick(() => callback(error));
      });
    });
    afterAll(() => lookup.mockRestore());

    it('then a query fails as the database being unavailable: 503 with Retry-After', async () => {
      const named = new URL(url);
      named.hostname = host;
      const error = await poolOf(2_000, 2_000, named.toString())
        .query('SELECT 1')
        .catch((caught: unknown) => caught);
      expect(lookup).toHaveBeenCalled();
      expect((error as { code?: unknown }).code).toBe('EAI_AGAIN');
      expect(answerTo(error)).toEqual(unavailable);
    });
  });
});
