import type { Queryable } from '../pool';

/** The one writer of `media_entries` and of their bytes, `media_blobs`. */
export function mediaQueries(db: Queryable) {
  return {
    /** Creates or updates an image entry with its bytes under the asset's key (the demo's media). */
    async upsertImage(entry: {
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
  };
}
