import { cliConfig } from '../../src/cli/run';
import { databaseUnavailableCause, isDatabaseUnavailable } from '../../src/db/pool';
import { translateError } from '../../src/http/middleware/errors';
import { loadConfig } from '../../src/config';

const pgError = (code: string, message = 'x') => Object.assign(new Error(message), { code });

describe('isDatabaseUnavailable', () => {
  it.each([
    ['pg-pool timing out on a connection', new Error('timeout exceeded when trying to connect')],
    ['a connection cut mid-query', new Error('Connection terminated unexpectedly')],
    ['a connection cut by its timeout', new Error('Connection terminated due to connection timeout')],
    ["a client's own connect timeout", new Error('timeout expired')],
    ['the query timeout', new Error('Query read timeout')],
    ['a refused connection', Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' })],
    ['a reset connection', Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' })],
    ['pg_terminate_backend (57P01)', pgError('57P01')],
    ['the server starting up (57P03)', pgError('57P03')],
    ['too many connections (53300)', pgError('53300')],
    ['a connection exception (08006)', pgError('08006')],
    // A failover: the server reached is (still) a standby, or the old primary was demoted.
    ['a read-only server refusing a write (25006)', pgError('25006')],
    ['the server out of disk (53100)', pgError('53100')],
    ['the server out of memory (53200)', pgError('53200')],
    ['a statement cancelled by statement_timeout or pg_cancel_backend (57014)', pgError('57014')],
  ])('when %s, then yes', (_name, error) => {
    expect(isDatabaseUnavailable(error)).toBe(true);
  });

  it.each([
    'ECONNREFUSED',
    'ECONNRESET',
    'EPIPE',
    'ETIMEDOUT',
    'EHOSTUNREACH',
    'EHOSTDOWN',
    'ENETUNREACH',
    'ENETDOWN',
    'ENOTFOUND',
    'EAI_AGAIN',
  ])('when a connection fails with %s, then yes', (code) => {
    expect(isDatabaseUnavailable(Object.assign(new Error('x'), { code }))).toBe(true);
  });

  // The object store's further errnos (src/storage/object-store.ts) are not the pool's: a 500 here, as before.
  it.each(['ECONNABORTED', 'UND_ERR_SOCKET'])(
    'when a connection fails with %s, then no (the store counts it, the pool does not)',
    (code) => {
      expect(isDatabaseUnavailable(Object.assign(new Error('x'), { code }))).toBe(false);
    },
  );

  it.each([
    ['a unique violation', pgError('23505')],
    ['a syntax error', pgError('42601')],
    ['a plain error', new Error('boom')],
    ['not an object', 'Connection terminated'],
  ])('when %s, then no', (_name, error) => {
    expect(isDatabaseUnavailable(error)).toBe(false);
  });

  it('when the database is unavailable, then the edge answers 503 DatabaseUnavailable with Retry-After 5', () => {
    const translated = translateError(new Error('timeout exceeded when trying to connect'));
    expect({
      status: translated?.status,
      details: translated?.details,
      retryAfter: translated?.retryAfterSeconds,
    }).toEqual({
      status: 503,
      details: {
        name: 'DatabaseUnavailable',
        message: 'The database is unavailable right now; try again in a few seconds',
      },
      retryAfter: 5,
    });
  });
});

describe('a write Postgres keeps aborting for a lock conflict', () => {
  it.each([
    ['a deadlock (40P01)', pgError('40P01', 'deadlock detected')],
    ['a serialisation failure (40001)', pgError('40001', 'could not serialize access')],
  ])(
    'when withTransaction gave up on %s, then the edge answers 503 DatabaseUnavailable with Retry-After 5, not a 500',
    (_name, error) => {
      const translated = translateError(error);
      expect({
        status: translated?.status,
        name: translated?.details.name,
        retryAfter: translated?.retryAfterSeconds,
      }).toEqual({
        status: 503,
        name: 'DatabaseUnavailable',
        retryAfter: 5,
      });
      // Not a sign of the connection being lost: withTransaction keeps it and the import does not stop.
      expect(isDatabaseUnavailable(error)).toBe(false);
    },
  );
});

describe('the pool timeouts in the configuration', () => {
  it('when nothing is set, then 5 s to connect, 15 s in line for a busy pool and 10 s per query', () => {
    expect(loadConfig({}).database).toMatchObject({
      connectTimeoutMs: 5_000,
      poolWaitMs: 15_000,
      queryTimeoutMs: 10_000,
    });
  });

  it('when set, then read; when not a number, then the variable is named', () => {
    expect(
      loadConfig({
        DATABASE_CONNECT_TIMEOUT_MS: '1500',
        DATABASE_POOL_WAIT_MS: '30000',
        DATABASE_QUERY_TIMEOUT_MS: '60000',
      }).database,
    ).toMatchObject({ connectTimeoutMs: 1_500, poolWaitMs: 30_000, queryTimeoutMs: 60_000 });
    expect(() => loadConfig({ DATABASE_POOL_WAIT_MS: '10' })).toThrow(/DATABASE_POOL_WAIT_MS/);
    expect(() => loadConfig({ DATABASE_QUERY_TIMEOUT_MS: 'soon' })).toThrow(/DATABASE_QUERY_TIMEOUT_MS/);
  });
});

describe('the statement timeout in the configuration (DATABASE_STATEMENT_TIMEOUT_MS)', () => {
  it('when nothing (or a blank) is set, then two minutes', () => {
    expect(loadConfig({}).database.statementTimeoutMs).toBe(120_000);
    expect(loadConfig({ DATABASE_STATEMENT_TIMEOUT_MS: ' ' }).database.statementTimeoutMs).toBe(120_000);
  });

  it('when set to 0, then none; when set to 100 ms or more, then read', () => {
    expect(loadConfig({ DATABASE_STATEMENT_TIMEOUT_MS: '0' }).database.statementTimeoutMs).toBe(0);
    expect(loadConfig({ DATABASE_STATEMENT_TIMEOUT_MS: '100' }).database.statementTimeoutMs).toBe(100);
    expect(loadConfig({ DATABASE_STATEMENT_TIMEOUT_MS: '600000' }).database.statementTimeoutMs).toBe(600_000);
  });

  it.each([
    ['50', '0 (none) or at least 100'],
    ['soon', "a whole number (digits only), not 'soon'"],
    ['-1', "a whole number (digits only), not '-1'"],
    ['1e5', "a whole number (digits only), not '1e5'"],
    ['86400001', 'at most 86400000'],
  ])('when it is %s, then the start fails naming the variable: %s', (value, why) => {
    expect(() => loadConfig({ DATABASE_STATEMENT_TIMEOUT_MS: value })).toThrow(
      `Invalid configuration:\n  DATABASE_STATEMENT_TIMEOUT_MS: ${why}`,
    );
  });

  it("when the CLI runs, then it sets none, whatever the API's and the workers' setting", () => {
    const before = process.env.DATABASE_STATEMENT_TIMEOUT_MS;
    process.env.DATABASE_STATEMENT_TIMEOUT_MS = '300';
    try {
      expect(cliConfig().database.statementTimeoutMs).toBe(0);
    } finally {
      if (before === undefined) delete process.env.DATABASE_STATEMENT_TIMEOUT_MS;
      else process.env.DATABASE_STATEMENT_TIMEOUT_MS = before;
    }
  });
});

describe('databaseUnavailableCause (what the log says cut a query)', () => {
  const timeouts = {
    connectTimeoutMs: 5_000,
    poolWaitMs: 15_000,
    queryTimeoutMs: 10_000,
    statementTimeoutMs: 300,
  };

  it.each([
    [
      'statement_timeout',
      pgError('57014', 'canceling statement due to statement timeout'),
      'DATABASE_STATEMENT_TIMEOUT_MS',
      'Postgres cancelled the statement after DATABASE_STATEMENT_TIMEOUT_MS (300 ms; statement_timeout)',
    ],
    [
      'the silence bound',
      new Error('Query read timeout: no answer from Postgres for 10000 ms'),
      'DATABASE_QUERY_TIMEOUT_MS',
      'no byte from Postgres within DATABASE_QUERY_TIMEOUT_MS (10000 ms)',
    ],
    [
      'the wait in line',
      new Error('timeout exceeded when trying to connect'),
      'DATABASE_POOL_WAIT_MS',
      'no free connection within DATABASE_POOL_WAIT_MS (15000 ms)',
    ],
    [
      "a client's connect timeout",
      new Error('timeout expired'),
      'DATABASE_CONNECT_TIMEOUT_MS',
      'a new connection did not open within DATABASE_CONNECT_TIMEOUT_MS (5000 ms)',
    ],
  ])('when %s cut it, then the bound is named with its value', (_name, error, bound, reason) => {
    expect(databaseUnavailableCause(error, timeouts)).toEqual({ bound, reason });
  });

  it('when the pool wait is the shorter, then a connection that did not open names it (createPool opens under it)', () => {
    expect(
      databaseUnavailableCause(new Error('timeout expired'), { ...timeouts, connectTimeoutMs: 20_000 }),
    ).toEqual({
      bound: 'DATABASE_POOL_WAIT_MS',
      reason: 'a new connection did not open within DATABASE_POOL_WAIT_MS (15000 ms)',
    });
  });

  it.each([
    [
      'pg_cancel_backend (57014 too)',
      pgError('57014', 'canceling statement due to user request'),
      'canceling statement due to user request (57014)',
    ],
    [
      'a refused connection',
      Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }),
      'connect ECONNREFUSED 127.0.0.1:5432 (ECONNREFUSED)',
    ],
    [
      'a cut connection',
      new Error('Connection terminated unexpectedly'),
      'Connection terminated unexpectedly',
    ],
  ])('when %s, then no bound: the error says what happened', (_name, error, reason) => {
    expect(databaseUnavailableCause(error, timeouts)).toEqual({ bound: undefined, reason });
  });
});
