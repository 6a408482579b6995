import type { Queryable } from '../../src/db/pool';
import { MetricsTokenFailures } from '../../src/http/metrics-token-failures';
import { createLogger } from '../../src/logger';

const logger = createLogger('silent');
const limit = { requests: 3, periodSeconds: 60 };
/** A Postgres that cannot be reached: every query fails at once. */
const unreachable = {
  query: () => Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:5432')),
} as unknown as Queryable;
/** A Postgres that never answers. */
const stuck = { query: () => new Promise(() => undefined) } as unknown as Queryable;

describe('MetricsTokenFailures without Postgres', () => {
  it('when Postgres cannot be reached, then the right token is served and wrong ones are limited by the process itself', async () => {
    const failures = new MetricsTokenFailures(unreachable, logger, limit, () => 90_000);
    expect(await failures.beforeServing('192.0.2.1')).toBeUndefined();
    for (let n = 0; n < 3; n += 1) expect(await failures.failed('192.0.2.1')).toBeUndefined();
    const refused = { retryAfterSeconds: 30, refusedBy: [{ scope: 'address', limit }] };
    expect(await failures.failed('192.0.2.1')).toEqual(refused);
    expect(await failures.beforeServing('192.0.2.1')).toEqual(refused);
    expect(await failures.beforeServing('192.0.2.2')).toBeUndefined();
  });

  it('when the window ends, then the address is counted afresh', async () => {
    let now = 90_000;
    const failures = new MetricsTokenFailures(unreachable, logger, limit, () => now);
    for (let n = 0; n < 3; n += 1) await failures.failed('2001:db8:1:2::1');
    // An IPv6 address counts by its /64, as the failed-login limit counts it.
    expect(await failures.beforeServing('2001:db8:1:2::abcd')).toBeDefined();
    now = 120_000;
    expect(await failures.beforeServing('2001:db8:1:2::1')).toBeUndefined();
  });

  it('when Postgres does not answer, then a scrape waits for it 2 s at most', async () => {
    jest.useFakeTimers();
    try {
      const failures = new MetricsTokenFailures(stuck, logger, limit);
      const served = failures.beforeServing('192.0.2.3');
      const failed = failures.failed('192.0.2.3');
      await jest.advanceTimersByTimeAsync(2000);
      await expect(served).resolves.toBeUndefined();
      await expect(failed).resolves.toBeUndefined();
    } finally {
      jest.useRealTimers();
    }
  });

  it('when no limit is set (AUTH_FAILURE_LIMIT=none), then nothing is counted or refused', async () => {
    const failures = new MetricsTokenFailures(unreachable, logger, undefined);
    for (let n = 0; n < 10; n += 1) expect(await failures.failed('192.0.2.4')).toBeUndefined();
    expect(await failures.beforeServing('192.0.2.4')).toBeUndefined();
  });
});
