import type { Content, Metadata } from '../../domain/content';
import type { ReferenceRow } from '../../domain/references';
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

export function documentQueries(db: Queryable) {
  return {
    /** Another project's document is simply not found (never 403: existence does not leak). */
    async findById(projectId: number, documentId: number): Promise<DocumentRow | undefined> {
      const result = await db.query<DocumentRow>(
        `SELECT ${DOCUMENT_COLUMNS} FROM documents d WHERE d.project_id = $1 AND d.id = $2`,
        [projectId, documentId],
      );
      return result.rows[0];
    },

    /** Locks the row for the rest of the transaction: concurrent writers to one document serialise here. */
    async findByIdForUpdate(projectId: number, documentId: number): Promise<DocumentRow | undefined> {
      const result = await db.query<DocumentRow>(
        `SELECT ${DOCUMENT_COLUMNS} FROM documents d WHERE d.project_id = $1 AND d.id = $2 FOR UPDATE`,
        [projectId, documentId],
      );
      return result.rows[0];
    },

    /** Replaces the stored outgoing references of the document's draft or latest publication. */
    async replaceReferences(
      projectId: number,
      documentId: number,
      sourceKind: 'draft' | 'publication',
      rows: ReferenceRow[],
    ): Promise<void> {
      await db.query('DELETE FROM document_references WHERE source_document_id = $1 AND source_kind = $2', [
        documentId,
        sourceKind,
      ]);
      if (rows.length === 0) return;
      await db.query(
        `INSERT INTO document_references (project_id, source_document_id, source_kind, target_type, target_id,
           location, property_name, component_id, component_name, directive_name, service_name)
         SELECT $1, $2, $3, r.target_type, r.target_id, r.location, r.property_name, r.component_id,
           r.component_name, r.directive_name, r.service_name
         FROM jsonb_to_recordset($4::jsonb) AS r(target_type text, target_id text, location text,
           property_name text, component_id text, component_name text, directive_name text, service_name text)`,
        [
          projectId,
          documentId,
          sourceKind,
          JSON.stringify(
            rows.map((row) => ({
              target_type: row.targetType,
              target_id: row.targetId,
              location: row.location,
              property_name: row.propertyName ?? null,
              component_id: row.componentId ?? null,
              component_name: row.componentName ?? null,
              directive_name: row.directiveName ?? null,
              service_name: row.serviceName ?? null,
            })),
          ),
        ],
      );
    },
  };
}
