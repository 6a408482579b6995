import type { ViewSource } from '../../domain/document-view';
import type { Queryable } from '../pool';

/**
 * The columns of a ViewSource from `documents d` joined with its latest publication `publications p`: what
 * the publication snapshotted (updatedAt included: the document's updated_at as of the publish, not the
 * draft's now) and the document's publication dates; `content` is the column or expression of its content.
 */
function publicationViewColumns(content: string): string {
  return `d.project_id AS "projectId", d.channel_id AS "channelId", d.id AS "documentId",
           p.id AS "publicationId", p.document_type AS "documentType", p.content_type AS "contentType", p.layout,
           p.design_name AS "designName", p.design_version AS "designVersion", p.metadata, ${content},
           p.updated_at AS "updatedAt", d.first_publication_date AS "firstPublicationDate",
           d.last_publication_date AS "lastPublicationDate",
           d.significant_publication_date AS "significantPublicationDate",
           d.visible_publication_date_override AS "visiblePublicationDateOverride"`;
}

export const PUBLICATION_VIEW_COLUMNS = publicationViewColumns('p.content');

/**
 * PUBLICATION_VIEW_COLUMNS with an empty content, for views that do not show it: a content of megabytes is
 * not fetched from Postgres only to be dropped.
 */
export const PUBLICATION_VIEW_COLUMNS_WITHOUT_CONTENT = publicationViewColumns(`'[]'::jsonb AS content`);

/**
 * The latest publication of a published document with the document's publication dates: what a
 * publication view is made of. Unpublished, unknown and other projects' documents are undefined.
 */
export function latestPublicationQueries(db: Queryable) {
  return {
    async findViewSource(projectId: number, documentId: number): Promise<ViewSource | undefined> {
      const result = await db.query<ViewSource>(
        `SELECT ${PUBLICATION_VIEW_COLUMNS}
         FROM documents d JOIN publications p ON p.id = d.latest_publication_id
         WHERE d.project_id = $1 AND d.id = $2`,
        [projectId, documentId],
      );
      return result.rows[0];
    },

    /** The published ones among these documents of the project, in no particular order. */
    async findViewSources(projectId: number, documentIds: readonly number[]): Promise<ViewSource[]> {
      if (documentIds.length === 0) return [];
      const result = await db.query<ViewSource>(
        `SELECT ${PUBLICATION_VIEW_COLUMNS}
         FROM documents d JOIN publications p ON p.id = d.latest_publication_id
         WHERE d.project_id = $1 AND d.id = ANY($2::bigint[])`,
        [projectId, documentIds],
      );
      return result.rows;
    },
  };
}
