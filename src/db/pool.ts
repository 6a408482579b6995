import pg from 'pg';

// bigint ids (documents, publications, events) fit in a JS number for any realistic project; parse them as
// numbers so the API answers `documentId: 12`, not `"12"`.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));

export type Pool = pg.Pool;
export type Transaction = pg.PoolClient;
/** What a query factory needs: the pool or a transaction client. */
export type Queryable = Pick<pg.Pool, 'query'>;

export function createPool(url: string, max: number): Pool {
  const pool = new pg.Pool({ connectionString: url, max });
  // An idle client that errors (server restart) must not crash the process; the next query reconnects.
  pool.on('error', () => undefined);
  return pool;
}

/** Runs `work` in one transaction: commits when it resolves, rolls back when it throws. */
export async function withTransaction<T>(pool: Pool, work: (tx: Transaction) => Promise<T>): Promise<T> {
  const tx = await pool.connect();
  try {
    await tx.query('BEGIN');
    const result = await work(tx);
    await tx.query('COMMIT');
    return result;
  } catch (error) {
    await tx.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    tx.release();
  }
}
