import type { Queryable } from '../pool';

export interface QueueJobCounts {
  queue: string;
  /** Waiting to run: ready now, retrying after a failure, or scheduled for later. */
  queued: number;
  active: number;
  /** Failed for good (retries used up), kept until pg-boss's retention deletes them. */
  failed: number;
}

/** The documents index jobs name: waiting (ready, retrying or scheduled) and being indexed now. */
export interface PendingIndexDocuments {
  queued: number;
  active: number;
  /** When the documents of the oldest waiting job were sent (a handed-on job's `sentAt`); null: none waits. */
  oldestSentAt: Date | null;
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

    /**
     * The documents the index jobs of these queues name, not the jobs: an index-document job names one, an
     * index-documents job (an import batch's) its `documentIds`.
     */
    async countIndexDocuments(queues: readonly string[]): Promise<PendingIndexDocuments> {
      const result = await db.query<PendingIndexDocuments>(
        `SELECT coalesce(sum(documents) FILTER (WHERE state IN ('created', 'retry')), 0)::int AS queued,
                coalesce(sum(documents) FILTER (WHERE state = 'active'), 0)::int AS active,
                min(sent_at) FILTER (WHERE state IN ('created', 'retry')) AS "oldestSentAt"
         FROM (SELECT state, coalesce(jsonb_array_length(data->'documentIds'), 1) AS documents,
                      coalesce((data->>'sentAt')::timestamptz, created_on) AS sent_at
               FROM pgboss.job
               WHERE name = ANY($1::text[]) AND state IN ('created', 'retry', 'active')) jobs`,
        [queues],
      );
      return result.rows[0] ?? { queued: 0, active: 0, oldestSentAt: null };
    },
  };
}
