import { storableReferences } from '../../domain/reference-targets';
import type { ReferenceRow } from '../../domain/references';
import type { Queryable } from '../pool';

/** One entry that refers to a target, with every reference it makes to it (api-spec §2.9). */
export interface IncomingMediaReferenceGroup {
  id: string;
  references: { id: string; location: string; propertyName: string | null; type: string }[];
}

/** The one writer of `media_references` (what each media entry's metadata points at), and its reads. */
export function mediaReferenceQueries(db: Queryable) {
  return {
    /**
     * Replaces the stored outgoing references of an entry (in the transaction that writes the entry); those
     * that can name no target are left out (storableReferences).
     */
    async replace(projectId: number, mediaId: string, references: readonly ReferenceRow[]): Promise<void> {
      const rows = storableReferences(references);
      await db.query('DELETE FROM media_references WHERE project_id = $1 AND source_media_id = $2', [
        projectId,
        mediaId,
      ]);
      if (rows.length === 0) return;
      await db.query(
        `INSERT INTO media_references (project_id, source_media_id, target_type, target_id, location, property_name)
         SELECT $1, $2, r.target_type, r.target_id, r.location, r.property_name
         FROM jsonb_to_recordset($3::jsonb) AS r(target_type text, target_id text, location text, property_name text)`,
        [
          projectId,
          mediaId,
          JSON.stringify(
            rows.map((row) => ({
              target_type: row.targetType,
              target_id: row.targetId,
              location: row.location,
              property_name: row.propertyName ?? null,
            })),
          ),
        ],
      );
    },

    /**
     * The media entries whose metadata refers to the target (a media entry, or a document by its id as text),
     * by entry id in code point order, `limit` of them after `offset` entries, or after the entry `afterId`;
     * each with its references in property name order; with how many entries there are in all.
     */
    async incomingTo(
      projectId: number,
      /** `shownAs`: the references' `type` in the answer (a media entry's mediaType); the target type without. */
      target: { type: 'document' | 'media'; id: string; shownAs?: string },
      page: { limit: number; offset: number; afterId?: string | undefined },
    ): Promise<{ groups: IncomingMediaReferenceGroup[]; total: number }> {
      const where = `project_id = $1 AND target_type = $2 AND target_id = $3`;
      const [groups, total] = await Promise.all([
        db.query<IncomingMediaReferenceGroup>(
          `SELECT source_media_id AS id,
             jsonb_agg(jsonb_build_object('id', target_id, 'location', location, 'propertyName', property_name,
               'type', coalesce($7::text, target_type)) ORDER BY property_name COLLATE "C") AS "references"
           FROM media_references
           WHERE ${where} AND ($6::text IS NULL OR source_media_id COLLATE "C" > $6)
           GROUP BY source_media_id
           ORDER BY source_media_id COLLATE "C" LIMIT $4 OFFSET $5`,
          [
            projectId,
            target.type,
            target.id,
            page.limit,
            page.offset,
            page.afterId ?? null,
            target.shownAs ?? null,
          ],
        ),
        db.query<{ total: number }>(
          `SELECT count(DISTINCT source_media_id)::int AS total FROM media_references WHERE ${where}`,
          [projectId, target.type, target.id],
        ),
      ]);
      return { groups: groups.rows, total: total.rows[0]?.total ?? 0 };
    },
  };
}
