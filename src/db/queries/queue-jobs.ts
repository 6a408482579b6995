import type { Queryable } from '../pool';

export interface QueueJobCounts {
  queue: string;
  /** Waiting to run: ready now, retrying after a failure, or scheduled for later. */
  queued: number;
  active: number;
  /** Failed for good (retries used up), kept until pg-boss's retention deletes them. */
  failed: number;
}

/**
 * pg-boss's jobs, read-only (pg-boss owns the `pgboss` schema): counted straight from its table, so the
 * numbers are those of the moment asked, not the cache of counts pg-boss refreshes while a worker supervises.
 */
export function queueJobQueries(db: Queryable) {
  return {
    async countByQueue(queues: readonly string[]): Promise<QueueJobCounts[]> {
      const result = await db.query<{ queue: string; state: string; count: number }>(
        `SELECT name AS queue, state::text AS state, count(*)::int AS count FROM pgboss.job
         WHERE name = ANY($1::text[]) AND state IN ('created', 'retry', 'active', 'failed')
         GROUP BY name, state`,
        [queues],
      );
      return queues.map((queue) => {
        const of = (...states: string[]) =>
          result.rows
            .filter((row) => row.queue === queue && states.includes(row.state))
            .reduce((sum, row) => sum + row.count, 0);
        return { queue, queued: of('created', 'retry'), active: of('active'), failed: of('failed') };
      });
    },
  };
}
