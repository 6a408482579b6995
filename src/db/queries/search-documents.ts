import type { Queryable } from '../pool';
import { slicesOf } from '../../slices';
import type { DocumentKey } from './index-sources';

/** A built search document as sent to Elasticsearch, with the stamp that says what it was built from. */
export interface StoredSearchDocument {
  key: DocumentKey;
  indexVersion: number;
  projectRevision: number;
  builderVersion: number;
  body: string;
}

/** One page of published documents for a rebuild: the stored search document when its stamp is current. */
export interface RebuildPageRow extends DocumentKey {
  indexVersion: number;
  /** Null when nothing is stored or what is stored was built from older data or by an older builder. */
  body: string | null;
}

/** Rows per INSERT: six parameters each, well under Postgres's 65,535. */
const SAVE_BATCH = 1000;

/** search_documents (see its migration): built search documents kept so a rebuild need not build them again. */
export function searchDocumentQueries(db: Queryable) {
  return {
    /** Stores each document unless a newer version of it is already stored (a late job loses). */
    async save(documents: readonly StoredSearchDocument[]): Promise<void> {
      // One parameter per value, not arrays: an array parameter makes the driver escape every quote of every
      // body in JavaScript, which was most of what storing cost.
      for (const batch of slicesOf(documents, SAVE_BATCH)) {
        const values: unknown[] = [];
        const rows = batch.map((d) => {
          const at = values.length;
          values.push(
            d.key.documentId,
            d.key.projectId,
            d.indexVersion,
            d.projectRevision,
            d.builderVersion,
            d.body,
          );
          return `($${at + 1}::bigint, $${at + 2}::int, $${at + 3}::bigint, $${at + 4}::int, $${at + 5}::int, $${at + 6})`;
        });
        await db.query(
          `INSERT INTO search_documents (document_id, project_id, index_version, project_revision, builder_version, body)
           VALUES ${rows.join(', ')}
           ON CONFLICT (document_id) DO UPDATE SET
             project_id = EXCLUDED.project_id, index_version = EXCLUDED.index_version,
             project_revision = EXCLUDED.project_revision, builder_version = EXCLUDED.builder_version,
             body = EXCLUDED.body
           WHERE search_documents.index_version <= EXCLUDED.index_version`,
          values,
        );
      }
    },

    /** Forgets documents that left the index (unpublished), up to the version that removed them. */
    async remove(
      documents: readonly { key: DocumentKey; indexVersion: number | undefined }[],
    ): Promise<void> {
      if (documents.length === 0) return;
      await db.query(
        `DELETE FROM search_documents s
         USING unnest($1::bigint[], $2::bigint[]) AS gone(document_id, index_version)
         WHERE s.document_id = gone.document_id
           AND (gone.index_version IS NULL OR s.index_version <= gone.index_version)`,
        [documents.map((d) => d.key.documentId), documents.map((d) => d.indexVersion ?? null)],
      );
    },

    /** Published documents in (project, id) order after `after`, keyset-paged, with their current stored body. */
    async findRebuildPage(
      after: DocumentKey | undefined,
      limit: number,
      builderVersion: number,
    ): Promise<RebuildPageRow[]> {
      const result = await db.query<RebuildPageRow>(
        `SELECT d.project_id AS "projectId", d.id AS "documentId", d.index_version AS "indexVersion",
           s.body
         FROM documents d
         JOIN projects p ON p.id = d.project_id
         LEFT JOIN search_documents s ON s.document_id = d.id AND s.index_version = d.index_version
           AND s.project_revision = p.revision_number AND s.builder_version = $4
         WHERE d.latest_publication_id IS NOT NULL AND (d.project_id, d.id) > ($1, $2)
         ORDER BY d.project_id, d.id LIMIT $3`,
        [after?.projectId ?? 0, after?.documentId ?? 0, limit, builderVersion],
      );
      return result.rows;
    },
  };
}
