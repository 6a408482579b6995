import pg from 'pg';
import { typeParsers, type Queryable } from '../pool';
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
  /**
   * The stored document's UTF-8 bytes, a view of one of the page's blocks; null when nothing is stored or
   * what is stored was built from older data or by an older builder.
   */
  body: Buffer | null;
}

/** Where a rebuild's page copies its bodies: buffers it keeps until it gives them back (a reuse pool). */
export interface BodyBlocks {
  take(bytes: number): Buffer;
}

/** The size of the blocks a page's bodies are copied into (a page of 1000 is ~3.4 MB). */
const BODY_BLOCK_BYTES = 1024 * 1024;

/**
 * A page's column parsers: each text value (the body, the page's only text column) is copied into blocks
 * taken from `blocks` as node-postgres decodes it, so its string is garbage before the next row is read
 * instead of outliving young collections while the page is read and sent (a rebuild's ~3.4 MB of text per
 * page, copied by the GC into the old generation). The pool's other parsers apply as usual (ids as numbers).
 */
function bodiesInto(blocks: BodyBlocks, used: Buffer[]): pg.CustomTypesConfig {
  let block: Buffer = Buffer.alloc(0);
  let at = 0;
  const toBytes = (text: string): Buffer => {
    const bytes = Buffer.byteLength(text);
    if (at + bytes > block.length) {
      block = blocks.take(Math.max(BODY_BLOCK_BYTES, bytes));
      used.push(block);
      at = 0;
    }
    const view = block.subarray(at, at + block.write(text, at));
    at += bytes;
    return view;
  };
  const types = new pg.TypeOverrides(typeParsers());
  types.setTypeParser(pg.types.builtins.TEXT, toBytes);
  return types;
}

/** Rows per INSERT: six parameters each, well under Postgres's 65,535. */
const SAVE_BATCH = 1000;

/** search_documents (see its migration): built search documents kept so a rebuild need not build them again. */
export function searchDocumentQueries(db: Queryable) {
  return {
    /**
     * Stores each document unless a newer version of it is already stored (a late job loses), or unless the
     * document itself is gone: the rows are joined with their documents held FOR KEY SHARE (the lock the
     * foreign key check takes anyway), so a document deleted meanwhile, or being deleted (waited for, then
     * not found), is skipped instead of failing the whole batch on the foreign key (23503).
     */
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
          return `($${at + 1}::bigint, $${at + 2}::int, $${at + 3}::bigint, $${at + 4}::int, $${at + 5}::int, $${at + 6}::text)`;
        });
        // Locked in id order, as findExistingIdsForKeyShare locks them.
        await db.query(
          `INSERT INTO search_documents (document_id, project_id, index_version, project_revision, builder_version, body)
           SELECT v.document_id, v.project_id, v.index_version, v.project_revision, v.builder_version, v.body
           FROM (VALUES ${rows.join(', ')})
             AS v(document_id, project_id, index_version, project_revision, builder_version, body)
           JOIN documents d ON d.id = v.document_id AND d.project_id = v.project_id
           ORDER BY v.document_id
           FOR KEY SHARE OF d
           ON CONFLICT (document_id) DO UPDATE SET
             project_id = EXCLUDED.project_id, index_version = EXCLUDED.index_version,
             project_revision = EXCLUDED.project_revision, builder_version = EXCLUDED.builder_version,
             body = EXCLUDED.body
           WHERE search_documents.index_version <= EXCLUDED.index_version`,
          values,
        );
      }
    },

    /**
     * Forgets documents that left the index (unpublished), up to the version that removed them. The rows are
     * locked in id order, as save locks them: deleted in the order given (or as they lay in the table), a
     * remove held a higher id while a concurrent job's save held a lower one, each waited for the other's,
     * and Postgres aborted one (40P01; its index job failed). A row a save moved past the version meanwhile
     * is rechecked once locked and kept.
     */
    async remove(
      documents: readonly { key: DocumentKey; indexVersion: number | undefined }[],
    ): Promise<void> {
      if (documents.length === 0) return;
      await db.query(
        `DELETE FROM search_documents s
         USING (SELECT s.document_id FROM search_documents s
                JOIN unnest($1::bigint[], $2::bigint[]) AS gone(document_id, index_version)
                  ON s.document_id = gone.document_id
                WHERE gone.index_version IS NULL OR s.index_version <= gone.index_version
                ORDER BY s.document_id FOR UPDATE OF s) locked
         WHERE s.document_id = locked.document_id`,
        [documents.map((d) => d.key.documentId), documents.map((d) => d.indexVersion ?? null)],
      );
    },

    /**
     * Published documents in (project, id) order after `after`, keyset-paged, with their current stored body,
     * and the blocks of `blocks` the bodies were copied into (the caller's until it is done with the rows).
     */
    async findRebuildPage(
      after: DocumentKey | undefined,
      limit: number,
      builderVersion: number,
      blocks: BodyBlocks,
    ): Promise<{ rows: RebuildPageRow[]; blocks: Buffer[] }> {
      const used: Buffer[] = [];
      const result = await db.query<RebuildPageRow>({
        types: bodiesInto(blocks, used),
        text: `SELECT d.project_id AS "projectId", d.id AS "documentId", d.index_version AS "indexVersion",
           s.body
         FROM documents d
         JOIN projects p ON p.id = d.project_id
         LEFT JOIN search_documents s ON s.document_id = d.id AND s.index_version = d.index_version
           AND s.project_revision = p.revision_number AND s.builder_version = $4
         WHERE d.latest_publication_id IS NOT NULL AND (d.project_id, d.id) > ($1, $2)
         ORDER BY d.project_id, d.id LIMIT $3`,
        values: [after?.projectId ?? 0, after?.documentId ?? 0, limit, builderVersion],
      });
      return { rows: result.rows, blocks: used };
    },
  };
}
