import type { Queryable } from '../pool';

/** Requests a client made in one fixed window, to add to the shared count. */
export interface WindowIncrement {
  clientId: string;
  periodSeconds: number;
  /** Milliseconds since the epoch. */
  windowStartMs: number;
  requests: number;
}

/** The shared per-client request counts of the rate limits (README, "Rate limits"). */
export function apiClientRequestWindowQueries(db: Queryable) {
  return {
    /**
     * Adds each increment to its window's count in one statement and returns every window's new total, in
     * the order given. Increments of the same window are summed first (ON CONFLICT may touch a row once). The
     * rows are written, and so locked until the transaction ends, in key order: the GROUP BY alone hands them
     * over in its hash table's order, which changes with the set of windows, so two processes' syncs over
     * overlapping clients could each hold a row the other waits for, and Postgres would abort one (40P01).
     */
    async add(increments: readonly WindowIncrement[]): Promise<number[]> {
      if (increments.length === 0) return [];
      const result = await db.query<{
        clientId: string;
        periodSeconds: number;
        startMs: string;
        requests: number;
      }>(
        `INSERT INTO api_client_request_windows AS w (client_id, period_seconds, window_start, requests)
         SELECT client_id, period_seconds, to_timestamp(start_ms / 1000.0), sum(requests)::int
         FROM unnest($1::uuid[], $2::int[], $3::bigint[], $4::int[])
           AS i(client_id, period_seconds, start_ms, requests)
         GROUP BY client_id, period_seconds, start_ms
         ORDER BY client_id, period_seconds, start_ms
         ON CONFLICT (client_id, period_seconds, window_start)
         DO UPDATE SET requests = w.requests + excluded.requests
         RETURNING client_id AS "clientId", period_seconds AS "periodSeconds",
           (extract(epoch FROM window_start) * 1000)::bigint::text AS "startMs", requests`,
        [
          increments.map((i) => i.clientId),
          increments.map((i) => i.periodSeconds),
          increments.map((i) => i.windowStartMs),
          increments.map((i) => i.requests),
        ],
      );
      const totals = new Map(
        result.rows.map((row) => [`${row.clientId}|${row.periodSeconds}|${row.startMs}`, row.requests]),
      );
      return increments.map(
        (i) => totals.get(`${i.clientId}|${i.periodSeconds}|${i.windowStartMs}`) ?? i.requests,
      );
    },

    /** Forgets windows that ended long ago (the longest window is a day). */
    async deleteOlderThan(before: Date): Promise<number> {
      const result = await db.query('DELETE FROM api_client_request_windows WHERE window_start < $1', [
        before,
      ]);
      return result.rowCount ?? 0;
    },
  };
}
