import type { IncomingDocumentReference, StoredIncomingReference } from '../../domain/incoming-references';
import { storableReferences } from '../../domain/reference-targets';
import type { ReferenceRow } from '../../domain/references';
import type { Queryable } from '../pool';

/** A published document that refers to a media entry, with every reference it makes to it (api-spec §2.9). */
export interface IncomingDocumentReferenceGroup {
  id: number;
  /** The same parts as a reference to a document; `type` is what the media entry is referred to as. */
  references: (Omit<IncomingDocumentReference, 'type'> & { type: string })[];
}

const SOURCE_KINDS = ['draft', 'publication'] as const;

/**
 * The one writer of `document_references`: the outgoing references of drafts and latest publications, but for
 * those that can name no target (storableReferences).
 */
export function documentReferenceQueries(db: Queryable) {
  const insertRows = async (
    projectId: number,
    sourceKind: 'draft' | 'publication',
    documents: readonly { documentId: number; rows: readonly ReferenceRow[] }[],
  ): Promise<void> => {
    const records = documents.flatMap(({ documentId, rows }) =>
      storableReferences(rows).map((row) => referenceRecord(documentId, sourceKind, row)),
    );
    if (records.length === 0) return;
    await db.query(INSERT_REFERENCES, [projectId, JSON.stringify(records)]);
  };

  return {
    /**
     * Replaces the stored outgoing references of the document's draft, its latest publication or both (each
     * kind given is replaced by its rows, possibly none) in one statement.
     */
    async replace(
      projectId: number,
      documentId: number,
      rowsByKind: Partial<Record<'draft' | 'publication', readonly ReferenceRow[]>>,
    ): Promise<void> {
      const kinds = SOURCE_KINDS.filter((kind) => rowsByKind[kind] !== undefined);
      if (kinds.length === 0) return;
      const records = kinds.flatMap((kind) =>
        storableReferences(rowsByKind[kind] ?? []).map((row) => referenceRecord(documentId, kind, row)),
      );
      // No unique key on the table, and the DELETE sees the statement's snapshot: it never meets the new rows.
      // With no records the INSERT adds nothing and the DELETE still runs (a CTE that writes always does).
      await db.query({
        name: 'document-references-replace',
        text: `WITH gone AS (
           DELETE FROM document_references WHERE source_document_id = $3 AND source_kind = ANY($4::text[]))
         ${INSERT_REFERENCES}`,
        values: [projectId, JSON.stringify(records), documentId, kinds],
      });
    },

    /**
     * replace for many documents of the project: one DELETE and one INSERT for all of them. `new` documents
     * (inserted by this transaction) have nothing to delete.
     */
    async replaceMany(
      projectId: number,
      sourceKind: 'draft' | 'publication',
      documents: readonly { documentId: number; rows: readonly ReferenceRow[]; new?: boolean }[],
    ): Promise<void> {
      const existing = documents.flatMap((document) => (document.new ? [] : [document.documentId]));
      if (existing.length > 0) {
        await db.query(
          'DELETE FROM document_references WHERE source_document_id = ANY($1::bigint[]) AND source_kind = $2',
          [existing, sourceKind],
        );
      }
      await insertRows(projectId, sourceKind, documents);
    },

    /**
     * mediaLibrary/{id}/incomingDocumentReferences: the published documents (their latest publication) that
     * refer to the media entry, by document id, `limit` of them after `offset` documents or after the
     * document `afterId`; with how many there are in all.
     */
    async incomingToMedia(
      projectId: number,
      /** The entry; its mediaType is each reference's `type`, as the vendor answers it (`image`, `video`, `file`). */
      { id: mediaId, mediaType }: { id: string; mediaType: string },
      page: { limit: number; offset: number; afterId?: number | undefined },
    ): Promise<{ groups: IncomingDocumentReferenceGroup[]; total: number }> {
      const where = `project_id = $1 AND target_type = 'media' AND target_id = $2 AND source_kind = 'publication'`;
      const [groups, total] = await Promise.all([
        db.query<IncomingDocumentReferenceGroup>(
          `SELECT source_document_id AS id,
             jsonb_agg(jsonb_strip_nulls(jsonb_build_object('componentId', component_id,
               'componentName', component_name, 'directiveName', directive_name, 'id', target_id,
               'location', location, 'propertyName', property_name, 'serviceName', service_name,
               'type', $6::text)) ORDER BY component_id, property_name) AS "references"
           FROM document_references
           WHERE ${where} AND ($5::bigint IS NULL OR source_document_id > $5)
           GROUP BY source_document_id
           ORDER BY source_document_id LIMIT $3 OFFSET $4`,
          [projectId, mediaId, page.limit, page.offset, page.afterId ?? null, mediaType],
        ),
        db.query<{ total: number }>(
          `SELECT count(DISTINCT source_document_id)::int AS total FROM document_references WHERE ${where}`,
          [projectId, mediaId],
        ),
      ]);
      return { groups: groups.rows, total: total.rows[0]?.total ?? 0 };
    },
  };
}

/** Inserts the references given as records (see referenceRecord) in $2, of the project $1. */
const INSERT_REFERENCES = `INSERT INTO document_references (project_id, source_document_id, source_kind, target_type,
    target_id, location, property_name, component_id, component_name, directive_name, service_name)
  SELECT $1, r.source_document_id, r.source_kind, r.target_type, r.target_id, r.location, r.property_name,
    r.component_id, r.component_name, r.directive_name, r.service_name
  FROM jsonb_to_recordset($2::jsonb) AS r(source_document_id bigint, source_kind text, target_type text,
    target_id text, location text, property_name text, component_id text, component_name text,
    directive_name text, service_name text)`;

/** A reference as a record of INSERT_REFERENCES. */
function referenceRecord(documentId: number, sourceKind: 'draft' | 'publication', row: ReferenceRow) {
  return {
    source_document_id: documentId,
    source_kind: sourceKind,
    target_type: row.targetType,
    target_id: row.targetId,
    location: row.location,
    property_name: row.propertyName ?? null,
    component_id: row.componentId ?? null,
    component_name: row.componentName ?? null,
    directive_name: row.directiveName ?? null,
    service_name: row.serviceName ?? null,
  };
}

/** Which page of source documents: after a source id (a cursor) or past an offset, in ascending source id. */
export interface SourcePage {
  limit: number;
  offset: number;
  /** Only sources with a larger id (the keyset of a 2026-01 cursor). */
  afterSourceId?: number | undefined;
}

/**
 * Reads of `document_references` by target: which documents point at a document. `publication` rows are the
 * references of published documents as published (unpublish removes them), `draft` rows those of every
 * document's current draft, published or not; both are written in the transaction of the write that changed
 * the content, so a read never sees a reference that did not commit. A reference stored for several of the
 * kinds asked for (a draft that still says what was published) is one reference.
 */
export function incomingDocumentReferenceQueries(db: Queryable) {
  return {
    /** The references of one page of source documents (ascending id), every reference of each. */
    async page(
      projectId: number,
      targetDocumentId: number,
      sourceKinds: readonly ('draft' | 'publication')[],
      page: SourcePage,
    ): Promise<StoredIncomingReference[]> {
      if (page.limit === 0) return [];
      const result = await db.query<StoredIncomingReference>(
        `WITH sources AS (
           SELECT DISTINCT r.source_document_id AS id FROM document_references r
           WHERE r.project_id = $1 AND r.target_type = 'document' AND r.target_id = $2
             AND r.source_kind = ANY($3::text[]) AND ($4::bigint IS NULL OR r.source_document_id > $4)
           ORDER BY id LIMIT $5 OFFSET $6)
         SELECT DISTINCT r.source_document_id AS "sourceDocumentId", r.target_id AS "targetId", r.location,
           r.property_name AS "propertyName", r.component_id AS "componentId",
           r.component_name AS "componentName", r.directive_name AS "directiveName",
           r.service_name AS "serviceName"
         FROM sources s JOIN document_references r ON r.source_document_id = s.id
         WHERE r.project_id = $1 AND r.target_type = 'document' AND r.target_id = $2
           AND r.source_kind = ANY($3::text[])
         ORDER BY "sourceDocumentId", r.location, "propertyName" NULLS FIRST, "componentId" NULLS FIRST,
           "directiveName" NULLS FIRST, "serviceName" NULLS FIRST`,
        [
          projectId,
          String(targetDocumentId),
          sourceKinds,
          page.afterSourceId ?? null,
          page.limit,
          page.offset,
        ],
      );
      return result.rows;
    },

    /** How many documents point at the document (the `total` of 2026-01). */
    async countSources(
      projectId: number,
      targetDocumentId: number,
      sourceKinds: readonly ('draft' | 'publication')[],
    ): Promise<number> {
      const result = await db.query<{ count: string }>(
        `SELECT count(DISTINCT source_document_id) AS count FROM document_references
         WHERE project_id = $1 AND target_type = 'document' AND target_id = $2 AND source_kind = ANY($3::text[])`,
        [projectId, String(targetDocumentId), sourceKinds],
      );
      return Number(result.rows[0]!.count);
    },
  };
}
