import type { Queryable } from '../pool';
import type { DocumentKey } from './index-sources';

/** A document Elasticsearch refused for good, as the indexer recorded it. */
export interface IndexRejection extends DocumentKey {
  indexVersion: number | null;
  reason: string;
  rejectedAt: Date;
}

/** index_rejections (see its migration): the documents the index refused for good, until one is written. */
export function indexRejectionQueries(db: Queryable) {
  return {
    /**
     * After a bulk write: records each refused document (the newest refusal wins) and forgets the ones just
     * written, in one statement. A refused document that is gone, or being deleted, is not recorded: its row
     * is held FOR KEY SHARE (see searchDocumentQueries.save), where a plain existence check saw a document
     * whose delete had not committed yet, and the insert then failed on the foreign key.
     * Every existing row of both kinds is locked first, in id order, before anything is written (`locked` is
     * read whole by the INSERT's one-time filter; the DELETE, a CTE nobody reads, runs after the INSERT): the
     * refusals were recorded in id order and the written ones forgotten after, so two jobs over the same
     * documents, one refusing a document the other wrote (its content changed between their builds), each
     * held a row the other waited for, and Postgres aborted one (40P01; its index job failed). Only a new
     * refusal is still inserted after the locks, in id order, as every saveOutcome inserts them.
     */
    async saveOutcome(
      rejected: readonly { key: DocumentKey; indexVersion: number | undefined; reason: string }[],
      written: readonly DocumentKey[],
    ): Promise<void> {
      if (rejected.length === 0 && written.length === 0) return;
      await db.query(
        `WITH locked AS MATERIALIZED (
           SELECT document_id FROM index_rejections WHERE document_id = ANY($1::bigint[] || $2::bigint[])
           ORDER BY document_id FOR UPDATE
         ), cleared AS (
           DELETE FROM index_rejections i USING locked
           WHERE i.document_id = locked.document_id AND locked.document_id = ANY($1::bigint[])
         )
         INSERT INTO index_rejections (document_id, project_id, index_version, reason)
         SELECT r.document_id, r.project_id, r.index_version, r.reason
         FROM unnest($2::bigint[], $3::int[], $4::bigint[], $5::text[])
           AS r(document_id, project_id, index_version, reason)
         JOIN documents d ON d.id = r.document_id
         WHERE (SELECT count(*) FROM locked) >= 0
         ORDER BY r.document_id
         FOR KEY SHARE OF d
         ON CONFLICT (document_id) DO UPDATE SET
           project_id = EXCLUDED.project_id, index_version = EXCLUDED.index_version,
           reason = EXCLUDED.reason, rejected_at = now()`,
        [
          written.map((key) => key.documentId),
          rejected.map((r) => r.key.documentId),
          rejected.map((r) => r.key.projectId),
          rejected.map((r) => r.indexVersion ?? null),
          rejected.map((r) => r.reason),
        ],
      );
    },

    async count(): Promise<number> {
      const result = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM index_rejections');
      return result.rows[0]?.n ?? 0;
    },

    /** The most recent refusals first; all of them without a limit. */
    async list(limit?: number): Promise<IndexRejection[]> {
      const result = await db.query<IndexRejection>(
        `SELECT project_id AS "projectId", document_id AS "documentId", index_version AS "indexVersion",
           reason, rejected_at AS "rejectedAt"
         FROM index_rejections ORDER BY rejected_at DESC, document_id LIMIT $1`,
        [limit ?? null],
      );
      return result.rows;
    },
  };
}
