import type { Content, Metadata } from '../../domain/content';
import type { PublicationStateSource } from '../../domain/planner-integration';
import type { Queryable } from '../pool';

/** A document row: its draft, its publication state and its publish control. */
export interface DocumentRow {
  id: number;
  projectId: number;
  channelId: number;
  documentType: 'article' | 'page' | 'data-record';
  contentType: string;
  layout: string | null;
  designName: string | null;
  designVersion: string | null;
  systemName: string | null;
  externalId: string | null;
  metadata: Metadata;
  content: Content;
  version: number;
  createdAt: Date;
  updatedAt: Date;
  latestPublicationId: number | null;
  publishedVersion: number | null;
  firstPublicationDate: Date | null;
  lastPublicationDate: Date | null;
  significantPublicationDate: Date | null;
  visiblePublicationDateOverride: Date | null;
  embargoSet: boolean;
  embargoReason: string | null;
  embargoUntil: Date | null;
  publishScheduleAt: Date | null;
  unpublishScheduleAt: Date | null;
  indexVersion: number;
}

export const DOCUMENT_COLUMNS = `d.id, d.project_id AS "projectId", d.channel_id AS "channelId",
  d.document_type AS "documentType", d.content_type AS "contentType", d.layout,
  d.design_name AS "designName", d.design_version AS "designVersion",
  d.system_name AS "systemName", d.external_id AS "externalId", d.metadata, d.content, d.version,
  d.created_at AS "createdAt", d.updated_at AS "updatedAt",
  d.latest_publication_id AS "latestPublicationId", d.published_version AS "publishedVersion",
  d.first_publication_date AS "firstPublicationDate", d.last_publication_date AS "lastPublicationDate",
  d.significant_publication_date AS "significantPublicationDate",
  d.visible_publication_date_override AS "visiblePublicationDateOverride",
  d.embargo_set AS "embargoSet", d.embargo_reason AS "embargoReason", d.embargo_until AS "embargoUntil",
  d.publish_schedule_at AS "publishScheduleAt", d.unpublish_schedule_at AS "unpublishScheduleAt",
  d.index_version AS "indexVersion"`;

/**
 * The types of the publication an unpublish took down: its event names them (a site following its articles
 * learns that the article went), whatever the draft has become since.
 */
export interface UnpublishedTypes {
  unpublishedContentType: string;
  unpublishedDocumentType: string;
}

/** The types a publication was made with (its document's draft may have others since). */
export interface PublicationTypes {
  contentType: string;
  documentType: string;
}

const UNPUBLISHED_TYPES = `p.content_type AS "unpublishedContentType",
  p.document_type AS "unpublishedDocumentType"`;

/** The draft an import writes: everything the import body decides about a document. */
export interface ImportedDraft {
  projectId: number;
  channelId: number;
  documentType: string;
  contentType: string;
  designName: string | null;
  designVersion: string | null;
  metadata: Metadata;
  content: Content;
}

export interface PublicationDates {
  firstPublicationDate?: string | undefined;
  significantPublicationDate?: string | undefined;
  visiblePublicationDateOverride?: string | undefined;
  lastPublicationDate?: string | undefined;
}

/** The document an import targets, locked: what the batch needs to know before it writes. */
export interface ImportTargetRow {
  id: number;
  systemName: string | null;
  externalId: string | null;
  channelId: number;
  latestPublicationId: number | null;
  /** Its embargo: an import may not publish it while the embargo is in force. */
  embargoSet: boolean;
  embargoReason: string | null;
  embargoUntil: Date | null;
  /** Its publication dates: an import that names other ones changes what latestPublication answers. */
  firstPublicationDate: Date | null;
  significantPublicationDate: Date | null;
  visiblePublicationDateOverride: Date | null;
  lastPublicationDate: Date | null;
}

/** One document of an import batch: its draft and the publication dates its import names. */
export interface ImportedDraftRow {
  draft: ImportedDraft;
  dates: Omit<PublicationDates, 'lastPublicationDate'>;
}

/** The draft and publish control a document commands request leaves behind (PATCH documents/{id}/commands). */
export interface CommandedDraft {
  metadata: Metadata;
  content: Content;
  /** Keep updated_at as it is (2026-03 `preserveUpdatedAt`) instead of setting it to `now`. */
  preserveUpdatedAt: boolean;
  now: Date;
  /**
   * Metadata or content differ from what was stored. When not, a document whose publication was its draft
   * stays so (published_version follows the new version): an embargo or a schedule is no unpublished change.
   * When they do, and the draft is now exactly its latest publication again (edits put back, in this request
   * or over several), it has no unpublished changes either.
   */
  draftChanged: boolean;
  /**
   * The search document changes without a publication (the embargo of a published document): the index
   * version grows, so the index job the caller enqueues replaces the stored search document.
   */
  reindex: boolean;
  embargo: { reason: string; until: string | null } | null;
  publishSchedule: string | null;
  unpublishSchedule: string | null;
}

/** The one writer of `documents`: drafts, publication state, publish control and the index version. */
export function documentQueries(db: Queryable) {
  const insertDocument = async (
    draft: ImportedDraft,
    systemName: string | null,
    externalId: string | null,
  ): Promise<number> => {
    const result = await db.query<{ id: number }>(
      `INSERT INTO documents (project_id, channel_id, document_type, content_type, design_name, design_version,
         system_name, external_id, metadata, content)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING id`,
      [
        draft.projectId,
        draft.channelId,
        draft.documentType,
        draft.contentType,
        draft.designName,
        draft.designVersion,
        systemName,
        externalId,
        JSON.stringify(draft.metadata),
        JSON.stringify(draft.content),
      ],
    );
    return result.rows[0]!.id;
  };

  return {
    /** Another project's document is simply not found (never 403: existence does not leak). */
    async findById(projectId: number, documentId: number): Promise<DocumentRow | undefined> {
      const result = await db.query<DocumentRow>(
        `SELECT ${DOCUMENT_COLUMNS} FROM documents d WHERE d.project_id = $1 AND d.id = $2`,
        [projectId, documentId],
      );
      return result.rows[0];
    },

    /**
     * findById, the row held FOR KEY SHARE for the rest of the transaction: for a write that then inserts a
     * row referencing the document. The document cannot be deleted until the commit, and one being deleted
     * is waited for and then not found, so the insert never meets the foreign key (a 500) instead of the
     * not-found answer. KEY SHARE is the lock the foreign key check itself takes: updates of the document
     * (publishes, commands) are not held off any more than by the insert.
     */
    async findByIdForKeyShare(projectId: number, documentId: number): Promise<DocumentRow | undefined> {
      const result = await db.query<DocumentRow>(
        `SELECT ${DOCUMENT_COLUMNS} FROM documents d WHERE d.project_id = $1 AND d.id = $2 FOR KEY SHARE`,
        [projectId, documentId],
      );
      return result.rows[0];
    },

    /** Whether the project has the document (undefined: it has not) and whether it is published now. */
    async findPublishedState(
      projectId: number,
      documentId: number,
    ): Promise<{ published: boolean } | undefined> {
      const result = await db.query<{ published: boolean }>(
        'SELECT latest_publication_id IS NOT NULL AS published FROM documents WHERE project_id = $1 AND id = $2',
        [projectId, documentId],
      );
      return result.rows[0];
    },

    /**
     * Locks the row for the rest of the transaction: concurrent writers to one document serialise here. FOR NO
     * KEY UPDATE, the lock their UPDATE takes anyway: no writer deletes a document or changes its keys, and FOR
     * UPDATE also held off every transaction holding it FOR KEY SHARE (the lock of a row inserted to reference
     * it: a planning tool following its publication, a delivery status, a list item), both ways.
     */
    async findByIdForUpdate(projectId: number, documentId: number): Promise<DocumentRow | undefined> {
      const result = await db.query<DocumentRow>({
        // Named, like the other statements of a publish: each connection parses and plans it once.
        name: 'documents-find-by-id-for-update',
        text: `SELECT ${DOCUMENT_COLUMNS} FROM documents d WHERE d.project_id = $1 AND d.id = $2 FOR NO KEY UPDATE`,
        values: [projectId, documentId],
      });
      return result.rows[0];
    },

    /** A new, empty draft (version 1) that commands then fill in: planner elements create them. */
    async insertDraft(draft: Omit<ImportedDraft, 'metadata' | 'content'>): Promise<number> {
      return insertDocument({ ...draft, metadata: {}, content: [] }, null, null);
    },

    /** Which of these ids are documents of the project, ascending. */
    async findExistingIds(projectId: number, ids: readonly number[]): Promise<number[]> {
      const result = await db.query<{ id: number }>(
        'SELECT id FROM documents WHERE project_id = $1 AND id = ANY($2::bigint[]) ORDER BY id',
        [projectId, ids],
      );
      return result.rows.map((row) => row.id);
    },

    /**
     * findExistingIds, the rows held FOR KEY SHARE for the rest of the transaction (see findByIdForKeyShare):
     * for a write that then inserts rows referencing them (a list's items). Locked in id order.
     */
    async findExistingIdsForKeyShare(projectId: number, ids: readonly number[]): Promise<number[]> {
      const result = await db.query<{ id: number }>(
        'SELECT id FROM documents WHERE project_id = $1 AND id = ANY($2::bigint[]) ORDER BY id FOR KEY SHARE',
        [projectId, ids],
      );
      return result.rows.map((row) => row.id);
    },

    /**
     * The publication state of these documents of the project, with the planning tool's links to them:
     * whether they were ever published (an unpublished document has publications, a draft none).
     */
    async findPublicationStates(
      projectId: number,
      ids: readonly number[],
    ): Promise<PublicationStateSource[]> {
      const result = await db.query<PublicationStateSource>(
        `SELECT d.id, d.version, d.updated_at AS "updatedAt",
           d.latest_publication_id AS "latestPublicationId", d.published_version AS "publishedVersion",
           d.first_publication_date AS "firstPublicationDate", d.last_publication_date AS "lastPublicationDate",
           d.embargo_set AS "embargoSet", d.embargo_reason AS "embargoReason", d.embargo_until AS "embargoUntil",
           d.publish_schedule_at AS "publishScheduleAt", d.unpublish_schedule_at AS "unpublishScheduleAt",
           EXISTS (SELECT 1 FROM publications p WHERE p.document_id = d.id) AS "everPublished",
           e.element_id AS "elementId", pp.record AS "plannerPublication"
         FROM documents d
         LEFT JOIN planner_elements e ON e.project_id = d.project_id AND e.document_id = d.id
         LEFT JOIN planner_publications pp ON pp.project_id = d.project_id AND pp.document_id = d.id
         WHERE d.project_id = $1 AND d.id = ANY($2::bigint[])`,
        [projectId, ids],
      );
      return result.rows;
    },

    /**
     * The documents of an import batch, locked in id order in one statement (as every batch, and an apply
     * that re-indexes, locks them, so two writers over the same documents wait for each other instead of
     * deadlocking): by (system name, external id) and by id. A batch naming documents both ways finds the ids
     * of those named by external id first, unlocked, and then locks them all by id: locking each kind in a
     * statement of its own held a higher id of one kind while it waited for a lower id of the other, and an
     * apply holding that lower id and waiting for the higher one was aborted as a deadlock (a 500). Locked
     * FOR NO KEY UPDATE, as findByIdForUpdate locks a document for a command: a batch neither deletes its
     * documents nor changes their keys, and FOR UPDATE also waited for every transaction holding one FOR KEY
     * SHARE (inserting a row that references it: the indexer's saved search document or refusal, a delivery
     * status, a list item) and held those off in turn until the batch committed. The keys come in as a
     * semi-join rather than `project_id = $1 AND ...`: while an import fills a new project, the planner's
     * statistics think it holds a handful of rows and scanned all of them per batch (a batch's lookup grew
     * from 5 ms to over a second in a 10,000-document import); the semi-join is one unique-index probe per
     * key whatever the statistics say.
     */
    async findImportTargetsForUpdate(
      projectId: number,
      systemName: string,
      externalIds: readonly string[],
      documentIds: readonly number[],
    ): Promise<ImportTargetRow[]> {
      const columns = `d.id, d.system_name AS "systemName", d.external_id AS "externalId",
        d.channel_id AS "channelId", d.latest_publication_id AS "latestPublicationId",
        d.embargo_set AS "embargoSet", d.embargo_reason AS "embargoReason", d.embargo_until AS "embargoUntil",
        d.first_publication_date AS "firstPublicationDate",
        d.significant_publication_date AS "significantPublicationDate",
        d.visible_publication_date_override AS "visiblePublicationDateOverride",
        d.last_publication_date AS "lastPublicationDate"`;
      const byExternalId = `FROM documents d
        WHERE (d.project_id, d.system_name, d.external_id) IN (SELECT $1::integer, $2::text, unnest($3::text[]))`;
      const byId = `FROM documents d WHERE (d.project_id, d.id) IN (SELECT $1::integer, unnest($2::bigint[]))`;
      if (documentIds.length === 0) {
        if (externalIds.length === 0) return [];
        const result = await db.query<ImportTargetRow>(
          `SELECT ${columns} ${byExternalId} ORDER BY d.id FOR NO KEY UPDATE`,
          [projectId, systemName, externalIds],
        );
        return result.rows;
      }
      const found =
        externalIds.length === 0
          ? []
          : (
              await db.query<{ id: number }>(`SELECT d.id ${byExternalId}`, [
                projectId,
                systemName,
                externalIds,
              ])
            ).rows.map((row) => row.id);
      const result = await db.query<ImportTargetRow>(
        `SELECT ${columns} ${byId} ORDER BY d.id FOR NO KEY UPDATE`,
        [projectId, [...new Set([...found, ...documentIds])]],
      );
      return result.rows;
    },

    /**
     * Inserts the new documents of an import batch in one statement, with the publication dates they name;
     * ids grow in the order given. Returns each new id by external id.
     */
    async insertImportedMany(
      projectId: number,
      systemName: string,
      rows: readonly (ImportedDraftRow & { externalId: string })[],
    ): Promise<Map<string, number>> {
      if (rows.length === 0) return new Map();
      const result = await db.query<{ id: number; externalId: string }>(
        `INSERT INTO documents (project_id, channel_id, document_type, content_type, design_name, design_version,
           system_name, external_id, metadata, content, first_publication_date, significant_publication_date,
           visible_publication_date_override)
         SELECT $1, r.channel_id, r.document_type, r.content_type, r.design_name, r.design_version, $2,
           r.external_id, r.metadata, r.content, r.first_publication_date, r.significant_publication_date,
           r.visible_publication_date_override
         FROM ROWS FROM (jsonb_to_recordset($3::jsonb) AS (channel_id integer, document_type text,
           content_type text, design_name text, design_version text, external_id text, metadata jsonb,
           content jsonb, first_publication_date timestamptz, significant_publication_date timestamptz,
           visible_publication_date_override timestamptz)) WITH ORDINALITY AS r
         ORDER BY r.ordinality
         RETURNING id, external_id AS "externalId"`,
        [
          projectId,
          systemName,
          JSON.stringify(rows.map((row) => draftRecord(row, { external_id: row.externalId }))),
        ],
      );
      return new Map(result.rows.map((row) => [row.externalId, row.id]));
    },

    /**
     * insertImportedMany for new documents that are published at once: each document and its first
     * publication in one statement, linked from the start (ids taken from the sequences first; the two
     * foreign keys between them are checked at the statement's end, when both rows exist), with what
     * markPublished would set. Saves rewriting every new documents row to link its publication. The
     * publication's updated_at is the document's: both are the transaction's now() (the column's default).
     */
    async insertPublishedImportedMany(
      projectId: number,
      systemName: string,
      rows: readonly (ImportedDraftRow & { externalId: string })[],
      now: Date,
    ): Promise<Map<string, { documentId: number; publicationId: number }>> {
      if (rows.length === 0) return new Map();
      const result = await db.query<{ externalId: string; documentId: number; publicationId: number }>(
        `WITH r AS MATERIALIZED (
           SELECT r.*, nextval(pg_get_serial_sequence('documents', 'id')) AS document_id,
             nextval(pg_get_serial_sequence('publications', 'id')) AS publication_id
           FROM ROWS FROM (jsonb_to_recordset($3::jsonb) AS (channel_id integer, document_type text,
             content_type text, design_name text, design_version text, external_id text, metadata jsonb,
             content jsonb, first_publication_date timestamptz, significant_publication_date timestamptz,
             visible_publication_date_override timestamptz)) WITH ORDINALITY AS r
           ORDER BY r.ordinality),
         d AS (
           INSERT INTO documents (id, project_id, channel_id, document_type, content_type, design_name,
             design_version, system_name, external_id, metadata, content, latest_publication_id,
             published_version, first_publication_date, last_publication_date, significant_publication_date,
             visible_publication_date_override, index_version)
           SELECT r.document_id, $1, r.channel_id, r.document_type, r.content_type, r.design_name,
             r.design_version, $2, r.external_id, r.metadata, r.content, r.publication_id, 1,
             coalesce(r.first_publication_date, $4), $4, r.significant_publication_date,
             r.visible_publication_date_override, 1
           FROM r ORDER BY r.ordinality),
         p AS (
           INSERT INTO publications (id, project_id, document_id, document_version, content_type,
             document_type, design_name, design_version, metadata, content, updated_at)
           SELECT r.publication_id, $1, r.document_id, 1, r.content_type, r.document_type, r.design_name,
             r.design_version, r.metadata, r.content, now()
           FROM r ORDER BY r.ordinality)
         SELECT external_id AS "externalId", document_id AS "documentId", publication_id AS "publicationId"
         FROM r`,
        [
          projectId,
          systemName,
          JSON.stringify(rows.map((row) => draftRecord(row, { external_id: row.externalId }))),
          now,
        ],
      );
      return new Map(result.rows.map(({ externalId, ...ids }) => [externalId, ids]));
    },

    /**
     * Replaces the drafts of existing documents with imported ones in one statement: version + 1, and the
     * publication dates the import names (the others stay as they are). A document whose publication was its
     * draft stays so when the import sends that draft again (published_version follows the new version, as
     * saveCommandedDraft does for commands that change nothing of it); so does one with unpublished changes
     * when the import sends exactly its latest publication (metadata, content, content and document type,
     * design; the layout is the document's) again: edits put back, as saveCommandedDraft has it. The ids are
     * documents of the project this transaction locked (findImportTargetsForUpdate): matched by primary key
     * alone, see there why.
     * Returns the ids of those that are live with no unpublished changes now: publishing them again would
     * only repeat their publication.
     */
    async replaceImportedDrafts(
      rows: readonly (ImportedDraftRow & { documentId: number })[],
    ): Promise<Set<number>> {
      if (rows.length === 0) return new Set();
      const result = await db.query<{ id: number; live: boolean }>(
        `UPDATE documents d SET document_type = r.document_type, content_type = r.content_type,
           design_name = r.design_name, design_version = r.design_version, metadata = r.metadata,
           content = r.content, version = d.version + 1, updated_at = now(),
           published_version = CASE
             WHEN d.published_version = d.version
               AND (d.document_type, d.content_type, d.design_name, d.design_version, d.metadata, d.content)
                 IS NOT DISTINCT FROM
                 (r.document_type, r.content_type, r.design_name, r.design_version, r.metadata, r.content)
               THEN d.version + 1
             WHEN d.published_version IS DISTINCT FROM d.version
               AND EXISTS (SELECT 1 FROM publications p WHERE p.id = d.latest_publication_id
                 AND p.metadata = r.metadata AND p.content = r.content
                 AND (p.content_type, p.document_type, p.layout, p.design_name, p.design_version)
                   IS NOT DISTINCT FROM (r.content_type, r.document_type, d.layout, r.design_name, r.design_version))
               THEN d.version + 1
             ELSE d.published_version END,
           first_publication_date = coalesce(r.first_publication_date, d.first_publication_date),
           significant_publication_date = coalesce(r.significant_publication_date, d.significant_publication_date),
           visible_publication_date_override = coalesce(r.visible_publication_date_override,
             d.visible_publication_date_override)
         FROM jsonb_to_recordset($1::jsonb) AS r(id bigint, document_type text, content_type text,
           design_name text, design_version text, metadata jsonb, content jsonb,
           first_publication_date timestamptz, significant_publication_date timestamptz,
           visible_publication_date_override timestamptz)
         WHERE d.id = r.id
         RETURNING d.id, d.latest_publication_id IS NOT NULL AND d.published_version = d.version AS live`,
        [JSON.stringify(rows.map((row) => draftRecord(row, { id: row.documentId })))],
      );
      return new Set(result.rows.filter((row) => row.live).map((row) => row.id));
    },

    /**
     * Publishes the current drafts of these (locked) documents of the project in one statement: a new
     * publication each, then markPublished's changes. Returns each document's new publication id. (The keys
     * as a semi-join for the reason findImportTargetsForUpdate gives.)
     */
    async publishDrafts(
      projectId: number,
      documentIds: readonly number[],
      now: Date,
    ): Promise<Map<number, number>> {
      if (documentIds.length === 0) return new Map();
      const result = await db.query<{ documentId: number; publicationId: number }>(
        `WITH p AS (
           INSERT INTO publications (project_id, document_id, document_version, content_type, document_type,
             layout, design_name, design_version, metadata, content, updated_at)
           SELECT project_id, id, version, content_type, document_type, layout, design_name, design_version,
             metadata, content, updated_at
           FROM documents WHERE (project_id, id) IN (SELECT $1::integer, unnest($2::bigint[]))
           ORDER BY id
           RETURNING id, document_id)
         UPDATE documents d SET
           latest_publication_id = p.id,
           published_version = d.version,
           first_publication_date = coalesce(d.first_publication_date, $3),
           last_publication_date = $3,
           index_version = d.index_version + 1
         FROM p WHERE d.id = p.document_id
         RETURNING d.id AS "documentId", p.id AS "publicationId"`,
        [projectId, documentIds, now],
      );
      return new Map(result.rows.map((row) => [row.documentId, row.publicationId]));
    },

    /**
     * The project's published documents (all, or those of `documentIds`) get a new index version (their
     * search documents are to be built again, e.g. under a new project config); returns their ids, ascending.
     * The rows are locked in id order, as an import batch locks its documents, so the two wait for each other
     * instead of deadlocking.
     */
    async bumpPublishedIndexVersions(projectId: number, documentIds?: readonly number[]): Promise<number[]> {
      const result = await db.query<{ id: number }>(
        `UPDATE documents d SET index_version = d.index_version + 1
         FROM (SELECT id FROM documents
               WHERE project_id = $1 AND latest_publication_id IS NOT NULL
                 AND ($2::bigint[] IS NULL OR id = ANY($2::bigint[]))
               ORDER BY id FOR NO KEY UPDATE) locked
         WHERE d.id = locked.id
         RETURNING d.id`,
        [projectId, documentIds ?? null],
      );
      return result.rows.map((row) => row.id).sort((a, b) => a - b);
    },

    /**
     * markUnpublished for many published documents in one statement. Answers the types of the publication
     * each one had, by document id.
     */
    async markUnpublishedMany(
      projectId: number,
      documentIds: readonly number[],
    ): Promise<Map<number, UnpublishedTypes>> {
      if (documentIds.length === 0) return new Map();
      const result = await db.query<UnpublishedTypes & { id: number }>(
        `UPDATE documents d SET latest_publication_id = NULL, published_version = NULL,
           index_version = d.index_version + 1
         FROM publications p
         WHERE (d.project_id, d.id) IN (SELECT $1::integer, unnest($2::bigint[]))
           AND p.id = d.latest_publication_id
         RETURNING d.id, ${UNPUBLISHED_TYPES}`,
        [projectId, documentIds],
      );
      return new Map(result.rows.map(({ id, ...types }) => [id, types]));
    },

    /**
     * The index version of these published documents of the project grows: what their search documents are
     * built from changed without a publish or unpublish (which move it themselves), and only a higher version
     * replaces what the index holds. Answers the types of each one's publication, by document id (its event
     * names them: the draft may have others).
     */
    async bumpIndexVersions(
      projectId: number,
      documentIds: readonly number[],
    ): Promise<Map<number, PublicationTypes>> {
      if (documentIds.length === 0) return new Map();
      const result = await db.query<PublicationTypes & { id: number }>(
        `UPDATE documents d SET index_version = d.index_version + 1
         FROM publications p
         WHERE (d.project_id, d.id) IN (SELECT $1::integer, unnest($2::bigint[]))
           AND p.id = d.latest_publication_id
         RETURNING d.id, p.content_type AS "contentType", p.document_type AS "documentType"`,
        [projectId, documentIds],
      );
      return new Map(result.rows.map(({ id, ...types }) => [id, types]));
    },

    /**
     * Sets the lastPublicationDate each import names, after publishing (which set it to now). The ids are
     * documents of the project this transaction locked, as for replaceImportedDrafts.
     */
    async setLastPublicationDates(
      dates: readonly { documentId: number; lastPublicationDate: string }[],
    ): Promise<void> {
      if (dates.length === 0) return;
      await db.query(
        `UPDATE documents d SET last_publication_date = r.last_publication_date
         FROM jsonb_to_recordset($1::jsonb) AS r(id bigint, last_publication_date timestamptz)
         WHERE d.id = r.id`,
        [
          JSON.stringify(
            dates.map((date) => ({ id: date.documentId, last_publication_date: date.lastPublicationDate })),
          ),
        ],
      );
    },

    /**
     * Stores what a commands request made of the draft: version + 1, exactly once per request. Answers the
     * row as it now is (locked by the caller), so a publish that follows needs no second read of it.
     */
    async saveCommandedDraft(
      projectId: number,
      documentId: number,
      draft: CommandedDraft,
    ): Promise<DocumentRow> {
      const result = await db.query<DocumentRow>({
        name: 'documents-save-commanded-draft',
        text: `UPDATE documents d SET
           metadata = $3, content = $4, version = d.version + 1,
           published_version = CASE
             WHEN NOT $12 AND d.published_version = d.version THEN d.version + 1
             WHEN $12 AND EXISTS (SELECT 1 FROM publications p WHERE p.id = d.latest_publication_id
                 AND p.metadata = $3::jsonb AND p.content = $4::jsonb
                 AND (p.content_type, p.document_type, p.layout, p.design_name, p.design_version)
                   IS NOT DISTINCT FROM (d.content_type, d.document_type, d.layout, d.design_name, d.design_version))
               THEN d.version + 1
             ELSE d.published_version END,
           updated_at = CASE WHEN $5 THEN d.updated_at ELSE $6 END,
           embargo_set = $7, embargo_reason = $8, embargo_until = $9,
           publish_schedule_at = $10, unpublish_schedule_at = $11,
           index_version = d.index_version + CASE WHEN $13 THEN 1 ELSE 0 END
         WHERE d.project_id = $1 AND d.id = $2
         RETURNING ${DOCUMENT_COLUMNS}`,
        values: [
          projectId,
          documentId,
          JSON.stringify(draft.metadata),
          JSON.stringify(draft.content),
          draft.preserveUpdatedAt,
          draft.now,
          draft.embargo !== null,
          draft.embargo?.reason ?? null,
          draft.embargo?.until ?? null,
          draft.publishSchedule,
          draft.unpublishSchedule,
          draft.draftChanged,
          draft.reindex,
        ],
      });
      return rowOf(result.rows, documentId);
    },

    /**
     * Publishes the document's current draft in one statement: a new immutable publication (a snapshot of
     * the row as this transaction sees it, its updated_at included: the publication's updatedAt does not move
     * with later edits of the draft), and the document now has it: the publication dates move
     * (lastPublicationDate to `now`, or to the kept updated_at with `preserveUpdatedAt`, or not at all with
     * `keepLastPublicationDate` when it has one; a first firstPublicationDate to `now`, or with
     * `preserveUpdatedAt` to that updated_at too, never after the last) and the index version grows. Answers
     * the new publication's id and the row as it now is.
     */
    async publishDraft(
      projectId: number,
      documentId: number,
      options: { now: Date; preserveUpdatedAt: boolean; keepLastPublicationDate: boolean },
    ): Promise<{ publicationId: number; document: DocumentRow }> {
      const result = await db.query<DocumentRow & { newPublicationId: number }>({
        name: 'documents-publish-draft',
        text: `WITH p AS (
           INSERT INTO publications (project_id, document_id, document_version, content_type, document_type,
             layout, design_name, design_version, metadata, content, updated_at)
           SELECT project_id, id, version, content_type, document_type, layout, design_name, design_version,
             metadata, content, updated_at
           FROM documents WHERE project_id = $1 AND id = $2
           RETURNING id, document_id)
         UPDATE documents d SET
           latest_publication_id = p.id,
           published_version = d.version,
           first_publication_date = coalesce(d.first_publication_date, CASE WHEN $4 THEN d.updated_at ELSE $3 END),
           last_publication_date = CASE WHEN $5 AND d.last_publication_date IS NOT NULL
             THEN d.last_publication_date WHEN $4 THEN d.updated_at ELSE $3 END,
           index_version = d.index_version + 1
         FROM p WHERE d.id = p.document_id
         RETURNING ${DOCUMENT_COLUMNS}, p.id AS "newPublicationId"`,
        values: [
          projectId,
          documentId,
          options.now,
          options.preserveUpdatedAt,
          options.keepLastPublicationDate,
        ],
      });
      const { newPublicationId, ...document } = rowOf(result.rows, documentId);
      return { publicationId: newPublicationId, document };
    },

    /**
     * The (published) document has no publication any more; the index version grows. Answers the row as it
     * now is and the types of the publication it had, which its draft may no longer have.
     */
    async markUnpublished(
      projectId: number,
      documentId: number,
    ): Promise<{ document: DocumentRow; unpublished: UnpublishedTypes }> {
      const result = await db.query<DocumentRow & UnpublishedTypes>(
        `UPDATE documents d SET latest_publication_id = NULL, published_version = NULL,
           index_version = d.index_version + 1
         FROM publications p
         WHERE d.project_id = $1 AND d.id = $2 AND p.id = d.latest_publication_id
         RETURNING ${DOCUMENT_COLUMNS}, ${UNPUBLISHED_TYPES}`,
        [projectId, documentId],
      );
      const { unpublishedContentType, unpublishedDocumentType, ...document } = rowOf(result.rows, documentId);
      return { document, unpublished: { unpublishedContentType, unpublishedDocumentType } };
    },

    /** Moves (or with null clears) the publish schedule. */
    async setPublishSchedule(projectId: number, documentId: number, at: string | null): Promise<void> {
      await db.query('UPDATE documents SET publish_schedule_at = $3 WHERE project_id = $1 AND id = $2', [
        projectId,
        documentId,
        at,
      ]);
    },

    async clearUnpublishSchedule(projectId: number, documentId: number): Promise<void> {
      await db.query('UPDATE documents SET unpublish_schedule_at = NULL WHERE project_id = $1 AND id = $2', [
        projectId,
        documentId,
      ]);
    },
  };
}

/** The one row a write of a locked document answers: the caller locked it, so it cannot be gone. */
function rowOf<T>(rows: T[], documentId: number): T {
  const row = rows[0];
  if (row === undefined) throw new Error(`document ${documentId} vanished inside its own transaction`);
  return row;
}

/** A document of an import batch as a record of jsonb_to_recordset (metadata and content inline). */
function draftRecord({ draft, dates }: ImportedDraftRow, keys: Record<string, unknown>): object {
  return {
    ...keys,
    channel_id: draft.channelId,
    document_type: draft.documentType,
    content_type: draft.contentType,
    design_name: draft.designName,
    design_version: draft.designVersion,
    metadata: draft.metadata,
    content: draft.content,
    first_publication_date: dates.firstPublicationDate ?? null,
    significant_publication_date: dates.significantPublicationDate ?? null,
    visible_publication_date_override: dates.visiblePublicationDateOverride ?? null,
  };
}
