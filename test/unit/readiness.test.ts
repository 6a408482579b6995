import { healthReads } from '../../src/reads/health';
import type { SearchClient } from '../../src/search/client';
import type { Logger } from '../../src/logger';

/** GET health/ready's checks with stand-in dependencies: which one is not ready is answered, why is logged. */
describe('readiness', () => {
  const refused = () =>
    Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
  const searchAnswering = (answer: () => Promise<{ status: string }>) =>
    ({ cluster: { health: answer }, connectionPool: { size: 1 } }) as unknown as SearchClient;
  const loggerSpy = () => {
    const warn = jest.fn();
    return { warn, logger: { warn } as unknown as Logger };
  };

  it('when Postgres refuses connections, then postgres is unavailable, without the error text, which is logged at warn', async () => {
    const { warn, logger } = loggerSpy();
    const error = refused();
    const reads = healthReads({
      db: { query: () => Promise.reject(error) } as never,
      search: searchAnswering(() => Promise.resolve({ status: 'green' })),
      logger,
    });
    expect(await reads.readiness()).toEqual({
      ready: false,
      postgres: 'unavailable',
      elasticsearch: 'ok',
      retryAfterSeconds: 5,
    });
    expect(warn).toHaveBeenCalledWith(
      { dependency: 'postgres', err: error },
      'readiness: postgres is unavailable',
    );
  });

  it('when the Elasticsearch cluster is red, then elasticsearch says red', async () => {
    const { logger } = loggerSpy();
    const reads = healthReads({
      db: { query: () => Promise.resolve({ rows: [] }) } as never,
      search: searchAnswering(() => Promise.resolve({ status: 'red' })),
      logger,
    });
    expect(await reads.readiness()).toMatchObject({ ready: false, postgres: 'ok', elasticsearch: 'red' });
  });

  it('when both answer, then ready', async () => {
    const reads = healthReads({
      db: { query: () => Promise.resolve({ rows: [] }) } as never,
      search: searchAnswering(() => Promise.resolve({ status: 'yellow' })),
    });
    expect(await reads.readiness()).toEqual({ ready: true, postgres: 'ok', elasticsearch: 'ok' });
  });
});
