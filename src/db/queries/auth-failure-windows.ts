import type { Queryable } from '../pool';

/** One key's window of failed secret checks. */
export interface FailureWindow {
  /** `address:<address>` or `client:<API client id>`. */
  key: string;
  periodSeconds: number;
  /** Milliseconds since the epoch. */
  windowStartMs: number;
}

/** What `reserve` saw of one key: its count before, and after when the attempt was added. */
export interface Reserved {
  key: string;
  seen: number;
  /** The count with this attempt added; null when it was not added (a key was already at its limit). */
  reserved: number | null;
}

/** The shared counts of failed secret checks (README, "Rate limits"). */
export function authFailureWindowQueries(db: Queryable) {
  return {
    /**
     * In one statement: unless some key's count is already at its `maxFailures`, adds one attempt to every key
     * (in key order, so that two attempts never wait for each other's rows); returns each key's count before
     * and after. A key of no window yet counts 0.
     */
    async reserve(windows: readonly (FailureWindow & { maxFailures: number })[]): Promise<Reserved[]> {
      const result = await db.query<Reserved>(
        `WITH input AS (
           SELECT key, period_seconds, to_timestamp(start_ms / 1000.0) AS window_start, max_failures
           FROM unnest($1::text[], $2::int[], $3::bigint[], $4::int[])
             AS i(key, period_seconds, start_ms, max_failures)
         ), seen AS (
           SELECT i.key, coalesce(w.failures, 0) AS failures, i.max_failures
           FROM input i LEFT JOIN auth_failure_windows w USING (key, period_seconds, window_start)
         ), added AS (
           INSERT INTO auth_failure_windows AS w (key, period_seconds, window_start, failures)
           SELECT key, period_seconds, window_start, 1 FROM input
           WHERE NOT EXISTS (SELECT 1 FROM seen WHERE seen.failures >= seen.max_failures)
           ORDER BY key
           ON CONFLICT (key, period_seconds, window_start) DO UPDATE SET failures = w.failures + 1
           RETURNING key, failures
         )
         SELECT seen.key, seen.failures AS seen, added.failures AS reserved
         FROM seen LEFT JOIN added USING (key)`,
        [
          windows.map((w) => w.key),
          windows.map((w) => w.periodSeconds),
          windows.map((w) => w.windowStartMs),
          windows.map((w) => w.maxFailures),
        ],
      );
      return result.rows;
    },

    /** The failures counted in these keys' current windows (a key of no window yet is absent). */
    async failures(windows: readonly FailureWindow[]): Promise<Map<string, number>> {
      const result = await db.query<{ key: string; failures: number }>(
        `SELECT w.key, w.failures
         FROM unnest($1::text[], $2::int[], $3::bigint[]) AS i(key, period_seconds, start_ms)
         JOIN auth_failure_windows w ON w.key = i.key AND w.period_seconds = i.period_seconds
           AND w.window_start = to_timestamp(i.start_ms / 1000.0)`,
        [windows.map((w) => w.key), windows.map((w) => w.periodSeconds), windows.map((w) => w.windowStartMs)],
      );
      return new Map(result.rows.map((row) => [row.key, row.failures]));
    },

    /** Takes one attempt back from a key's window (the secret was right, or the attempt was refused). */
    async release(window: FailureWindow): Promise<void> {
      await db.query(
        `UPDATE auth_failure_windows SET failures = greatest(0, failures - 1)
         WHERE key = $1 AND period_seconds = $2 AND window_start = to_timestamp($3::bigint / 1000.0)`,
        [window.key, window.periodSeconds, window.windowStartMs],
      );
    },

    /** Forgets windows that ended long ago (the longest window is a day). */
    async deleteOlderThan(before: Date): Promise<number> {
      const result = await db.query('DELETE FROM auth_failure_windows WHERE window_start < $1', [before]);
      return result.rowCount ?? 0;
    },
  };
}
