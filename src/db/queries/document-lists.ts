import type { Queryable } from '../pool';

/** The one writer of `document_lists` and their items, `document_list_items`. */
export function documentListQueries(db: Queryable) {
  return {
    /** Replaces the list of that name (so a re-run does not duplicate it) and fills it in editor order. */
    async replace(projectId: number, name: string, documentIds: readonly number[]): Promise<number> {
      await db.query('DELETE FROM document_lists WHERE project_id = $1 AND name = $2', [projectId, name]);
      const result = await db.query<{ id: number }>(
        'INSERT INTO document_lists (project_id, name) VALUES ($1, $2) RETURNING id',
        [projectId, name],
      );
      const listId = result.rows[0]!.id;
      await db.query(
        `INSERT INTO document_list_items (list_id, document_id, position)
         SELECT $1, document_id, position - 1 FROM unnest($2::bigint[]) WITH ORDINALITY AS t(document_id, position)`,
        [listId, documentIds],
      );
      return listId;
    },
  };
}
