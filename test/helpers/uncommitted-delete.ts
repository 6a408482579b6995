import type pg from 'pg';
import { commitWhenBlocked } from './held-transaction';

/**
 * Deletes `sql`'s rows in a transaction of its own and keeps it open while `during` starts a write, until
 * that write waits for the deleting transaction's row locks (another backend blocked by it); then commits
 * the delete and answers what the write answered. The write thus reads before the delete commits and goes
 * on after it: the window between an existence check and the insert of a row that references it.
 */
export function deleteCommittedWhileWaiting<T>(
  pool: pg.Pool,
  sql: { text: string; values: unknown[] },
  during: () => Promise<T>,
): Promise<PromiseSettledResult<T>> {
  return commitWhenBlocked(pool, sql, during);
}
