import { databaseStartError, redactDatabaseUrl } from '../../src/db/pool';

const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });

describe('redactDatabaseUrl', () => {
  it('when DATABASE_URL has a password, then only the password is hidden', () => {
    expect(redactDatabaseUrl('postgres://app:hunter2@db.internal:5432/broadsheet')).toBe(
      'postgres://app:[REDACTED]@db.internal:5432/broadsheet',
    );
    // A password holding an @ (escaped or not) goes whole.
    expect(redactDatabaseUrl('postgresql://app:p@ss%40word@db:5432/x')).toBe(
      'postgresql://app:[REDACTED]@db:5432/x',
    );
  });

  it('when it has no password, or no user, then it is kept as is', () => {
    expect(redactDatabaseUrl('postgres://postgres@127.0.0.1:5432/broadsheet')).toBe(
      'postgres://postgres@127.0.0.1:5432/broadsheet',
    );
    expect(redactDatabaseUrl('postgres://127.0.0.1/broadsheet')).toBe('postgres://127.0.0.1/broadsheet');
  });

  it('when a query parameter carries a password, then its value is hidden too', () => {
    expect(redactDatabaseUrl('postgres://app@db/x?sslmode=require&password=hunter2')).toBe(
      'postgres://app@db/x?sslmode=require&password=[REDACTED]',
    );
  });
});

describe('databaseStartError', () => {
  const url = 'postgres://app:hunter2@127.0.0.1:5999/broadsheet';

  it.each([
    ['a refused connection', withCode('connect ECONNREFUSED 127.0.0.1:5999', 'ECONNREFUSED')],
    ['an unknown host', withCode('getaddrinfo ENOTFOUND nowhere', 'ENOTFOUND')],
    ['a DNS server that cannot answer now', withCode('getaddrinfo EAI_AGAIN db.internal', 'EAI_AGAIN')],
    [
      'no route to the network',
      withCode('connect ENETUNREACH 10.9.8.7:5432 - Local (0.0.0.0:0)', 'ENETUNREACH'),
    ],
    ['a refused password (28P01)', withCode('password authentication failed for user "app"', '28P01')],
    ['a missing database (3D000)', withCode('database "broadsheet" does not exist', '3D000')],
    ['a connect timeout', new Error('Connection terminated due to connection timeout')],
  ])(
    'when the start fails on %s, then the message names DATABASE_URL without its password, and why',
    (_name, error) => {
      const started = databaseStartError(url, error) as Error & { code?: string };
      expect(started.message).toBe(
        `cannot use Postgres at DATABASE_URL=postgres://app:[REDACTED]@127.0.0.1:5999/broadsheet: ${error.message}`,
      );
      expect(started.message).not.toContain('hunter2');
      expect(started.cause).toBe(error);
      // What reads the code (the CLI's hint to run `broadsheet migrate`) still can.
      expect(started.code).toBe((error as { code?: string }).code);
    },
  );

  it('when every address of a host refused, then the reasons of each are the message', () => {
    const error = Object.assign(
      new AggregateError([
        withCode('connect ECONNREFUSED ::1:5999', 'ECONNREFUSED'),
        withCode('connect ECONNREFUSED 127.0.0.1:5999', 'ECONNREFUSED'),
      ]),
      { code: 'ECONNREFUSED' },
    );
    expect((databaseStartError(url, error) as Error).message).toBe(
      'cannot use Postgres at DATABASE_URL=postgres://app:[REDACTED]@127.0.0.1:5999/broadsheet: ' +
        'connect ECONNREFUSED ::1:5999; connect ECONNREFUSED 127.0.0.1:5999',
    );
  });

  it('when the start fails on something else, then that error is thrown as it is', () => {
    const error = withCode('syntax error at or near "x"', '42601');
    expect(databaseStartError(url, error)).toBe(error);
  });
});
