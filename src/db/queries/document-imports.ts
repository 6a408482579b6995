import type { Content, Metadata } from '../../domain/content';
import type { Queryable } from '../pool';
import { DOCUMENT_COLUMNS, type DocumentRow } from './documents';

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

/** Writes of the document import (supplement §10): documents keyed by (project, system name, external id). */
export function documentImportQueries(db: Queryable) {
  return {
    async findByExternalIdForUpdate(
      projectId: number,
      systemName: string,
      externalId: string,
    ): Promise<DocumentRow | undefined> {
      const result = await db.query<DocumentRow>(
        `SELECT ${DOCUMENT_COLUMNS} FROM documents d
         WHERE d.project_id = $1 AND d.system_name = $2 AND d.external_id = $3 FOR UPDATE`,
        [projectId, systemName, externalId],
      );
      return result.rows[0];
    },

    async insert(draft: ImportedDraft, systemName: string, externalId: string): Promise<number> {
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
    },

    /** Replaces the draft of an existing document and bumps its version. */
    async update(documentId: number, draft: ImportedDraft): Promise<void> {
      await db.query(
        `UPDATE documents SET document_type = $3, content_type = $4, design_name = $5, design_version = $6,
           metadata = $7, content = $8, version = version + 1, updated_at = now()
         WHERE project_id = $1 AND id = $2`,
        [
          draft.projectId,
          documentId,
          draft.documentType,
          draft.contentType,
          draft.designName,
          draft.designVersion,
          JSON.stringify(draft.metadata),
          JSON.stringify(draft.content),
        ],
      );
    },

    /** Sets the publication dates the import names; the others stay as they are. */
    async setPublicationDates(projectId: number, documentId: number, dates: PublicationDates): Promise<void> {
      await db.query(
        `UPDATE documents SET
           first_publication_date = coalesce($3, first_publication_date),
           significant_publication_date = coalesce($4, significant_publication_date),
           visible_publication_date_override = coalesce($5, visible_publication_date_override),
           last_publication_date = coalesce($6, last_publication_date)
         WHERE project_id = $1 AND id = $2`,
        [
          projectId,
          documentId,
          dates.firstPublicationDate ?? null,
          dates.significantPublicationDate ?? null,
          dates.visiblePublicationDateOverride ?? null,
          dates.lastPublicationDate ?? null,
        ],
      );
    },
  };
}
