import type { Queryable } from '../pool';

/** The one writer of `planner_publications`: the publications a planning tool follows, with its record of each. */
export function plannerPublicationQueries(db: Queryable) {
  return {
    /** Starts following the document's publication, or replaces the tool's record of it. */
    async upsert(projectId: number, documentId: number, record: unknown): Promise<void> {
      await db.query(
        `INSERT INTO planner_publications (project_id, document_id, record) VALUES ($1, $2, $3)
         ON CONFLICT (project_id, document_id) DO UPDATE SET record = EXCLUDED.record, updated_at = now()`,
        [projectId, documentId, JSON.stringify(record)],
      );
    },

    /**
     * When the tool's record of the document's publication was last written, its row locked for the write
     * that judges preconditions on it; undefined when the tool does not follow it.
     */
    async findForUpdate(projectId: number, documentId: number): Promise<{ updatedAt: Date } | undefined> {
      const result = await db.query<{ updatedAt: Date }>(
        `SELECT updated_at AS "updatedAt" FROM planner_publications
         WHERE project_id = $1 AND document_id = $2 FOR UPDATE`,
        [projectId, documentId],
      );
      return result.rows[0];
    },

    /** Stops following it; false when the tool did not follow it. */
    async delete(projectId: number, documentId: number): Promise<boolean> {
      const result = await db.query(
        'DELETE FROM planner_publications WHERE project_id = $1 AND document_id = $2',
        [projectId, documentId],
      );
      return (result.rowCount ?? 0) > 0;
    },
  };
}
