import type { MediaEntryRow, MediaType, StoredAsset, Translation } from '../../domain/media';
import type { Queryable } from '../pool';

const COLUMNS = `id, media_type AS "mediaType", system_name AS "systemName", external_id AS "externalId", metadata,
  asset, translations, version, revoked, revoke_note AS "revokeNote", invalid, created_at AS "createdAt",
  updated_at AS "updatedAt"`;

/** What an import writes: the entry's fields, the asset read from its stored bytes. */
export interface MediaEntryWrite {
  mediaType: MediaType;
  systemName: string | null;
  externalId: string | null;
  metadata: Record<string, unknown>;
  asset: StoredAsset;
  translations: Translation[];
}

/** What serve-image needs to know of the entry behind an asset key. */
export interface ServedAssetRow {
  id: string;
  revoked: boolean;
  invalid: boolean;
}

/**
 * An asset (`a`, jsonb) of an entry that `broadsheet media backfill-video` reads: no duration, and a video
 * entry's or stored as a video or a sound. The same rule as wantsVideoFacts (src/domain/video-backfill.ts).
 */
const VIDEO_FACTS_WANTED = (a: string) =>
  `(${a} IS NOT NULL AND jsonb_typeof(${a}) = 'object' AND NOT ${a} ? 'duration'
    AND (media_type = 'video' OR ${a}->>'mimeType' ~ '^(video|audio)/'))`;

/** An entry with an asset (its own or a translation's) the backfill reads. */
const WANTS_VIDEO_FACTS = `(${VIDEO_FACTS_WANTED('asset')} OR EXISTS (
  SELECT 1 FROM jsonb_array_elements(translations) AS t(value) WHERE ${VIDEO_FACTS_WANTED("t.value->'asset'")}))`;

/** An entry the backfill reads, and the state it read (its write is made against that state). */
export interface VideoFactsCandidate {
  projectId: number;
  id: string;
  mediaType: MediaType;
  asset: StoredAsset | null;
  translations: Translation[];
}

/** The one writer of `media_entries`. */
export function mediaQueries(db: Queryable) {
  return {
    /**
     * The entry of the project whose asset, or one of whose translations' assets, is stored under `key`; null
     * when none is. Should two entries share a key, a revoked or invalid one wins: an image is served only
     * when nothing forbids it.
     */
    async findByAssetKey(projectId: number, key: string): Promise<ServedAssetRow | null> {
      const result = await db.query<ServedAssetRow>({
        // Named, so each connection plans it once: it runs for every image served.
        name: 'media-find-by-asset-key',
        text: `SELECT id, revoked, invalid FROM media_entries
         WHERE project_id = $1
           AND (asset->>'key' = $2 OR translations @> jsonb_build_array(jsonb_build_object('asset',
                jsonb_build_object('key', $2::text))))
         ORDER BY (revoked OR invalid) DESC, id
         LIMIT 1`,
        values: [projectId, key],
      });
      return result.rows[0] ?? null;
    },

    /** The entry, or undefined when the project has none with this id; `forUpdate` locks its row. */
    async findById(projectId: number, id: string, forUpdate = false): Promise<MediaEntryRow | undefined> {
      const result = await db.query<MediaEntryRow>(
        `SELECT ${COLUMNS} FROM media_entries WHERE project_id = $1 AND id = $2${forUpdate ? ' FOR UPDATE' : ''}`,
        [projectId, id],
      );
      return result.rows[0];
    },

    /** Which of these ids are entries of the project (unknown ids, of any shape, are left out). */
    async findExistingIds(projectId: number, ids: readonly string[]): Promise<string[]> {
      const result = await db.query<{ id: string }>(
        'SELECT id FROM media_entries WHERE project_id = $1 AND id = ANY($2::text[])',
        [projectId, ids],
      );
      return result.rows.map((row) => row.id);
    },

    /** The project's entries with these ids, in the order asked; unknown ids are left out. */
    async findByIds(projectId: number, ids: readonly string[]): Promise<MediaEntryRow[]> {
      const result = await db.query<MediaEntryRow>(
        `SELECT ${COLUMNS} FROM media_entries e
         JOIN unnest($2::text[]) WITH ORDINALITY AS wanted(id, position) USING (id)
         WHERE e.project_id = $1 ORDER BY wanted.position`,
        [projectId, [...new Set(ids)]],
      );
      return result.rows;
    },

    /** The entry a system knows by its external id; `forUpdate` locks its row. */
    async findByExternalId(
      projectId: number,
      systemName: string,
      externalId: string,
      forUpdate = false,
    ): Promise<MediaEntryRow | undefined> {
      const result = await db.query<MediaEntryRow>(
        `SELECT ${COLUMNS} FROM media_entries WHERE project_id = $1 AND system_name = $2 AND external_id = $3
         ${forUpdate ? 'FOR UPDATE' : ''}`,
        [projectId, systemName, externalId],
      );
      return result.rows[0];
    },

    /**
     * Creates the entry; undefined when its id, or its system name and external id, are taken (the unique
     * constraints decide, so two concurrent imports cannot both win).
     */
    async insert(projectId: number, id: string, entry: MediaEntryWrite): Promise<MediaEntryRow | undefined> {
      const result = await db.query<MediaEntryRow>(
        `INSERT INTO media_entries (project_id, id, media_type, system_name, external_id, metadata, asset,
           translations)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
         ON CONFLICT DO NOTHING
         RETURNING ${COLUMNS}`,
        [
          projectId,
          id,
          entry.mediaType,
          entry.systemName,
          entry.externalId,
          JSON.stringify(entry.metadata),
          JSON.stringify(entry.asset),
          JSON.stringify(entry.translations),
        ],
      );
      return result.rows[0];
    },

    /** Replaces an entry's fields and asset (an import by external id): a new version, updated now. */
    async replace(projectId: number, id: string, entry: MediaEntryWrite): Promise<MediaEntryRow> {
      const result = await db.query<MediaEntryRow>(
        `UPDATE media_entries SET media_type = $3, metadata = $4, asset = $5, translations = $6,
           version = version + 1, updated_at = now()
         WHERE project_id = $1 AND id = $2
         RETURNING ${COLUMNS}`,
        [
          projectId,
          id,
          entry.mediaType,
          JSON.stringify(entry.metadata),
          JSON.stringify(entry.asset),
          JSON.stringify(entry.translations),
        ],
      );
      return result.rows[0]!;
    },

    /** Writes the outcome of a patch batch: a new version; updated now unless `preserveUpdatedAt`. */
    async applyPatch(
      projectId: number,
      id: string,
      state: {
        revoked: boolean;
        revokeNote: string | null;
        metadata: Record<string, unknown>;
        translations: Translation[];
      },
      preserveUpdatedAt: boolean,
    ): Promise<MediaEntryRow> {
      const result = await db.query<MediaEntryRow>(
        `UPDATE media_entries SET revoked = $3, revoke_note = $4, metadata = $5, translations = $6,
           version = version + 1, updated_at = CASE WHEN $7::boolean THEN updated_at ELSE now() END
         WHERE project_id = $1 AND id = $2
         RETURNING ${COLUMNS}`,
        [
          projectId,
          id,
          state.revoked,
          state.revokeNote,
          JSON.stringify(state.metadata),
          JSON.stringify(state.translations),
          preserveUpdatedAt,
        ],
      );
      return result.rows[0]!;
    },

    /**
     * How many entries (of the project, or of all) have an asset the video backfill reads: its progress's total.
     * One pass over the table, as the backfill's own.
     */
    async countVideoFactsCandidates(projectId: number | undefined): Promise<number> {
      const result = await db.query<{ count: string }>(
        `SELECT count(*) AS count FROM media_entries
         WHERE ($1::integer IS NULL OR project_id = $1) AND ${WANTS_VIDEO_FACTS}`,
        [projectId ?? null],
      );
      return Number(result.rows[0]!.count);
    },

    /**
     * The next `limit` entries after `after` (in primary key order) that have an asset the video backfill reads;
     * no lock taken.
     */
    async videoFactsCandidates(
      projectId: number | undefined,
      after: { projectId: number; id: string } | undefined,
      limit: number,
    ): Promise<VideoFactsCandidate[]> {
      const result = await db.query<VideoFactsCandidate>(
        `SELECT project_id AS "projectId", id, media_type AS "mediaType", asset, translations
         FROM media_entries
         WHERE ($1::integer IS NULL OR project_id = $1)
           AND ($2::integer IS NULL OR (project_id, id) > ($2, $3::text))
           AND ${WANTS_VIDEO_FACTS}
         ORDER BY project_id, id
         LIMIT $4`,
        [projectId ?? null, after?.projectId ?? null, after?.id ?? null, limit],
      );
      return result.rows;
    },

    /**
     * Writes the assets and translations the video backfill filled, in one statement, each entry only while it
     * is as the backfill read it (an import or a patch since wins) and not locked by another transaction (a
     * locked one is skipped, not waited for). Neither the version nor updated_at changes: the entry is the
     * same, only more of what its stored bytes say is shown. Answers the entries written.
     */
    async fillVideoFacts(
      writes: readonly {
        read: VideoFactsCandidate;
        asset: StoredAsset | null;
        translations: Translation[];
      }[],
    ): Promise<{ projectId: number; id: string }[]> {
      if (writes.length === 0) return [];
      const json = (value: unknown) => (value === null ? null : JSON.stringify(value));
      const result = await db.query<{ projectId: number; id: string }>(
        `WITH w AS (
           SELECT * FROM unnest($1::integer[], $2::text[], $3::jsonb[], $4::jsonb[], $5::jsonb[], $6::jsonb[])
             AS w(project_id, id, read_asset, read_translations, asset, translations)
         ), unchanged AS (
           SELECT e.project_id, e.id FROM media_entries e JOIN w USING (project_id, id)
           WHERE e.asset IS NOT DISTINCT FROM w.read_asset AND e.translations = w.read_translations
           FOR UPDATE OF e SKIP LOCKED
         )
         UPDATE media_entries e SET asset = w.asset, translations = w.translations
         FROM w JOIN unchanged USING (project_id, id)
         WHERE e.project_id = w.project_id AND e.id = w.id
           AND e.asset IS NOT DISTINCT FROM w.read_asset AND e.translations = w.read_translations
         RETURNING e.project_id AS "projectId", e.id`,
        [
          writes.map((write) => write.read.projectId),
          writes.map((write) => write.read.id),
          writes.map((write) => json(write.read.asset)),
          writes.map((write) => json(write.read.translations)),
          writes.map((write) => json(write.asset)),
          writes.map((write) => json(write.translations)),
        ],
      );
      return result.rows;
    },

    /** Whether an entry of the project still names this object key (before its object is deleted). */
    async keyInUse(projectId: number, key: string): Promise<boolean> {
      const result = await db.query(
        `SELECT 1 FROM media_entries WHERE project_id = $1 AND asset ->> 'key' = $2 LIMIT 1`,
        [projectId, key],
      );
      return result.rowCount !== 0;
    },
  };
}
