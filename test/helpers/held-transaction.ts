import type pg from 'pg';
import { eventually } from './http';

/**
 * Runs `sql` in a transaction of its own and keeps it open while `during` starts a write, until that write
 * waits for the transaction's locks (another backend blocked by it); then runs `meanwhile` (what must not
 * wait for the write), commits, and answers what the write answered. The write thus reads before `sql`
 * commits and goes on after it.
 */
export async function commitWhenBlocked<T>(
  pool: pg.Pool,
  sql: { text: string; values: unknown[] },
  during: () => Promise<T>,
  meanwhile: () => Promise<void> = () => Promise.resolve(),
): Promise<PromiseSettledResult<T>> {
  const holder = await pool.connect();
  try {
    await holder.query('BEGIN');
    const pid = (await holder.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
    await holder.query(sql.text, sql.values);
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
    await meanwhile();
    await holder.query('COMMIT');
    return await write;
  } catch (error) {
    await holder.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    holder.release();
  }
}
