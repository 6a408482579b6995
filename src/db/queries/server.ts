import type { Queryable } from '../pool';

/** Questions about the Postgres server itself rather than a table (readiness). */
export function serverQueries(db: Queryable) {
  return {
    /** Resolves when the server answers a query: a connection can be had and used. */
    async ping(): Promise<void> {
      await db.query('SELECT 1');
    },
  };
}
