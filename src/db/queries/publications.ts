import type { Content, Metadata } from '../../domain/content';
import type { Queryable } from '../pool';

export interface PublicationRow {
  id: number;
  projectId: number;
  documentId: number;
  documentVersion: number;
  contentType: string;
  documentType: 'article' | 'page' | 'data-record';
  layout: string | null;
  designName: string | null;
  designVersion: string | null;
  metadata: Metadata;
  content: Content;
  publishedAt: Date;
}

const COLUMNS = `p.id, p.project_id AS "projectId", p.document_id AS "documentId",
  p.document_version AS "documentVersion", p.content_type AS "contentType", p.document_type AS "documentType",
  p.layout, p.design_name AS "designName", p.design_version AS "designVersion", p.metadata, p.content,
  p.published_at AS "publishedAt"`;

export function publicationQueries(db: Queryable) {
  return {
    async findById(projectId: number, publicationId: number): Promise<PublicationRow | undefined> {
      const result = await db.query<PublicationRow>(
        `SELECT ${COLUMNS} FROM publications p WHERE p.project_id = $1 AND p.id = $2`,
        [projectId, publicationId],
      );
      return result.rows[0];
    },
  };
}
