import type pg from 'pg';
import { eventually } from './http';

/**
 * Deletes `sql`'s rows in a transaction of its own and keeps it open while `during` starts a write, until
 * that write waits for the deleting transaction's row locks (another backend blocked by it); then commits
 * the delete and answers what the write answered. The write thus reads before the delete commits and goes
 * on after it: the window between an existence check and the insert of a row that references it.
 */
export async function deleteCommittedWhileWaiting<T>(
  pool: pg.Pool,
  sql: { text: string; values: unknown[] },
  during: () => Promise<T>,
): Promise<PromiseSettledResult<T>> {
  const deleter = await pool.connect();
  try {
    await deleter.query('BEGIN');
    const pid = (await deleter.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
    await deleter.query(sql.text, sql.values);
    const write = Promise.allSettled([during()]).then(([settled]) => settled);
    await eventually(
      async () =>
        (
          await pool.query<{ n: number }>(
            'SELECT count(*)::int AS n FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid))',
            [pid],
          )
        ).rows[0]!.n > 0,
      10_000,
      10,
    );
    await deleter.query('COMMIT');
    return await write;
  } catch (error) {
    await deleter.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    deleter.release();
  }
}
