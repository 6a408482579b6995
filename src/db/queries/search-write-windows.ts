import type { Queryable } from '../pool';

/** The channel every opened and closed search write window is notified on (see its migration). */
export const SEARCH_WINDOWS_CHANNEL = 'broadsheet_search_windows';

/** A window as notified: opened (with its projects, null for all, and how long it may stay open) or closed. */
export type WindowNotice =
  { open: number; projects: number[] | null; ttlMs: number } | { close: number; projects: number[] | null };

/** A window open right now, as a process that (re)connects reads it. */
export interface OpenWindow {
  id: number;
  projects: number[] | null;
  remainingMs: number;
}

/** search_write_windows (see its migration): the search answer cache's generations. */
export function searchWriteWindowQueries(db: Queryable) {
  return {
    /**
     * Opens a window over these projects (null: every project) and notifies it, in one autocommitted statement:
     * when it returns, every listening process has been told (delivery takes milliseconds). Forgets the
     * windows whose writer died.
     */
    async open(projects: readonly number[] | null, ttlMs: number): Promise<number> {
      const result = await db.query<{ id: number | string }>(
        `WITH expired AS (DELETE FROM search_write_windows WHERE expires_at < now()),
           opened AS (
             INSERT INTO search_write_windows (project_ids, expires_at)
             VALUES ($1::int[], now() + $2::int * interval '1 millisecond')
             RETURNING id)
         SELECT id, pg_notify($3, json_build_object('open', id, 'projects', $1::int[], 'ttlMs', $2::int)::text)
         FROM opened`,
        [projects === null ? null : [...projects], ttlMs, SEARCH_WINDOWS_CHANNEL],
      );
      return Number(result.rows[0]!.id);
    },

    /** Closes a window (its writes are visible to searches now) and notifies it, in one statement. */
    async close(id: number, projects: readonly number[] | null): Promise<void> {
      const notice: WindowNotice = { close: id, projects: projects === null ? null : [...projects] };
      await db.query(
        `WITH closed AS (DELETE FROM search_write_windows WHERE id = $1) SELECT pg_notify($2, $3)`,
        [id, SEARCH_WINDOWS_CHANNEL, JSON.stringify(notice)],
      );
    },

    async listOpen(): Promise<OpenWindow[]> {
      const result = await db.query<{ id: number | string; projects: number[] | null; remaining_ms: number }>(
        `SELECT id, project_ids AS projects,
           (extract(epoch FROM expires_at - now()) * 1000)::int AS remaining_ms
         FROM search_write_windows WHERE expires_at > now() ORDER BY id`,
      );
      // A listener's own connection has none of the pool's type parsers: its bigint ids come as text.
      return result.rows.map((row) => ({
        id: Number(row.id),
        projects: row.projects,
        remainingMs: row.remaining_ms,
      }));
    },
  };
}
