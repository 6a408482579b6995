import { EventEmitter } from 'node:events';
import pg from 'pg';

/**
 * Changes this process has just committed to rows its caches keep, by kind. A process's own caches drop such
 * a row at once, so the very next request sees the change; other processes learn of it from Postgres (a
 * notification or a short TTL, see the caches).
 */
export interface LocalChanges {
  apiClient: [id: string];
  project: [projectId: number];
}

/**
 * The driver's type parsers for this pool's connections only (pg's global parsers would change pg-boss's own
 * pool too): bigint ids (documents, publications, events) fit in a JS number for any realistic project, so the
 * API answers `documentId: 12`, not `"12"`.
 */
function typeParsers(): pg.CustomTypesConfig {
  const types = new pg.TypeOverrides();
  types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));
  return types;
}

/** The process's connection pool, with the signal of the changes it committed to cached rows. */
export class Pool extends pg.Pool {
  readonly changes = new EventEmitter<LocalChanges>();
}

export type Transaction = pg.PoolClient;
/** What a query factory needs: the pool or a transaction client. */
export type Queryable = Pick<pg.Pool, 'query'>;

export function createPool(url: string, max: number): Pool {
  const pool = new Pool({ connectionString: url, max, types: typeParsers() });
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
