import { withTransaction, type Pool, type Transaction } from '../../src/db/pool';

const pgError = (code: string) => Object.assign(new Error(`pg ${code}`), { code });

/** A pool of one fake connection that records the statements it is sent and how it is handed back. */
function fakePool() {
  const statements: string[] = [];
  const releases: unknown[] = [];
  const client = {
    query: (text: string) => {
      statements.push(text);
      return Promise.resolve({ rows: [], rowCount: 0 });
    },
    release: (error?: unknown) => void releases.push(error),
  };
  const pool = { connect: () => Promise.resolve(client) } as unknown as Pool;
  return { pool, statements, releases };
}

describe('withTransaction', () => {
  it.each([
    ['a deadlock (40P01)', '40P01'],
    ['a serialisation failure (40001)', '40001'],
  ])(
    'when Postgres aborts the transaction for %s, then the work runs again in a new one',
    async (_name, code) => {
      const { pool, statements, releases } = fakePool();
      let runs = 0;
      const answer = await withTransaction(pool, async (tx: Transaction) => {
        runs += 1;
        await tx.query('UPDATE documents');
        if (runs < 3) throw pgError(code);
        return 'done';
      });
      expect(answer).toBe('done');
      expect(runs).toBe(3);
      expect(statements).toEqual([
        ...['BEGIN', 'UPDATE documents', 'ROLLBACK'],
        ...['BEGIN', 'UPDATE documents', 'ROLLBACK'],
        ...['BEGIN', 'UPDATE documents', 'COMMIT'],
      ]);
      // Each connection goes back to the pool sound: the rollback went through.
      expect(releases).toEqual([undefined, undefined, undefined]);
    },
  );

  it('when Postgres keeps aborting it, then the third abort is thrown', async () => {
    const { pool } = fakePool();
    let runs = 0;
    await expect(
      withTransaction(pool, () => {
        runs += 1;
        return Promise.reject(pgError('40P01'));
      }),
    ).rejects.toMatchObject({ code: '40P01' });
    expect(runs).toBe(3);
  });

  it.each([
    ['a unique violation', pgError('23505')],
    ['a foreign key violation', pgError('23503')],
    ['a refusal of the work itself', new Error('not found')],
  ])('when the work fails with %s, then it runs once and the error is thrown', async (_name, error) => {
    const { pool, statements } = fakePool();
    let runs = 0;
    await expect(
      withTransaction(pool, () => {
        runs += 1;
        return Promise.reject(error);
      }),
    ).rejects.toBe(error);
    expect(runs).toBe(1);
    expect(statements).toEqual(['BEGIN', 'ROLLBACK']);
  });
});
