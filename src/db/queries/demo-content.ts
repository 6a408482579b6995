import type { Queryable } from '../pool';

/** Writes the demo loader needs beyond documents: media entries with their bytes, and document lists. */
export function demoContentQueries(db: Queryable) {
  return {
    async upsertMediaEntry(entry: {
      projectId: number;
      id: string;
      systemName: string;
      metadata: Record<string, unknown>;
      asset: Record<string, unknown>;
      mimeType: string;
      bytes: Buffer;
    }): Promise<void> {
      const key = entry.asset.key as string;
      await db.query(
        `INSERT INTO media_blobs (project_id, key, mime_type, bytes) VALUES ($1, $2, $3, $4)
         ON CONFLICT (project_id, key) DO UPDATE SET mime_type = EXCLUDED.mime_type, bytes = EXCLUDED.bytes`,
        [entry.projectId, key, entry.mimeType, entry.bytes],
      );
      await db.query(
        `INSERT INTO media_entries (project_id, id, media_type, system_name, external_id, metadata, asset)
         VALUES ($1, $2, 'image', $3, $2, $4, $5)
         ON CONFLICT (project_id, id) DO UPDATE SET metadata = EXCLUDED.metadata, asset = EXCLUDED.asset,
           version = media_entries.version + 1, updated_at = now()`,
        [
          entry.projectId,
          entry.id,
          entry.systemName,
          JSON.stringify(entry.metadata),
          JSON.stringify(entry.asset),
        ],
      );
    },

    /** Replaces the list of that name (so a re-run does not duplicate it) and fills it in editor order. */
    async replaceList(projectId: number, name: string, documentIds: readonly number[]): Promise<number> {
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
