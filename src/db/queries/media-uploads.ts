import type { Queryable } from '../pool';

/** Bytes uploaded and probed, in the object store under `key`, not yet named by an imported entry. */
export interface MediaUploadRow {
  id: string;
  key: string;
  filename: string;
  mimeType: string;
  size: number;
  width: number | null;
  height: number | null;
  /** Seconds, read from a video's header. */
  duration: number | null;
  createdAt: Date;
}

const COLUMNS = `id, key, filename, mime_type AS "mimeType", size, width, height, duration,
  created_at AS "createdAt"`;

/** The one writer of `media_uploads`. */
export function mediaUploadQueries(db: Queryable) {
  return {
    async insert(projectId: number, upload: Omit<MediaUploadRow, 'createdAt'>): Promise<MediaUploadRow> {
      const result = await db.query<MediaUploadRow>(
        `INSERT INTO media_uploads (project_id, id, key, filename, mime_type, size, width, height, duration)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING ${COLUMNS}`,
        [
          projectId,
          upload.id,
          upload.key,
          upload.filename,
          upload.mimeType,
          upload.size,
          upload.width,
          upload.height,
          upload.duration,
        ],
      );
      return result.rows[0]!;
    },

    /**
     * Takes the upload (deletes its row, in the caller's transaction) and returns it; undefined if unknown or
     * made before `madeSince` (expired, whether or not a sweep has deleted it yet).
     */
    async claim(projectId: number, id: string, madeSince: Date): Promise<MediaUploadRow | undefined> {
      const result = await db.query<MediaUploadRow>(
        `DELETE FROM media_uploads WHERE project_id = $1 AND id = $2 AND created_at >= $3 RETURNING ${COLUMNS}`,
        [projectId, id, madeSince],
      );
      return result.rows[0];
    },

    /** The upload, unless unknown or made before `madeSince` (expired). */
    async find(projectId: number, id: string, madeSince: Date): Promise<MediaUploadRow | undefined> {
      const result = await db.query<MediaUploadRow>(
        `SELECT ${COLUMNS} FROM media_uploads WHERE project_id = $1 AND id = $2 AND created_at >= $3`,
        [projectId, id, madeSince],
      );
      return result.rows[0];
    },

    /** Removes up to `limit` uploads older than `before` and returns their keys, for their objects to go too. */
    async takeExpired(before: Date, limit: number): Promise<string[]> {
      const result = await db.query<{ key: string }>(
        `DELETE FROM media_uploads WHERE (project_id, id) IN (
           SELECT project_id, id FROM media_uploads WHERE created_at < $1 ORDER BY created_at LIMIT $2
           FOR UPDATE SKIP LOCKED)
         RETURNING key`,
        [before, limit],
      );
      return result.rows.map((row) => row.key);
    },
  };
}
