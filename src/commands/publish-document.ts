import type { Transaction } from '../db/pool';
import { documentQueries, type DocumentRow } from '../db/queries/documents';
import { publicationQueries, type PublicationRow } from '../db/queries/publications';
import { extractReferences } from '../domain/references';
import { enqueue, type Boss } from '../jobs/boss';

export interface PublishOptions {
  now: Date;
  /** 2026-03 `preserveUpdatedAt`: lastPublicationDate takes the document's (kept) updated_at. */
  preserveUpdatedAt?: boolean;
}

/**
 * Publishes the document's current draft inside the caller's transaction (the row must be locked with
 * findByIdForUpdate): a new immutable publication, the publication dates, a publication event, the
 * publication's references and an index job (outbox). Either all of it commits or none.
 */
export async function publishDocument(
  tx: Transaction,
  boss: Boss,
  document: DocumentRow,
  options: PublishOptions,
): Promise<PublicationRow> {
  const publication = await publicationQueries(tx).insertFromDraft(document.projectId, document.id);
  const wasPublished = document.latestPublicationId !== null;
  await tx.query(
    `UPDATE documents SET
       latest_publication_id = $3,
       published_version = version,
       first_publication_date = coalesce(first_publication_date, $4),
       last_publication_date = CASE WHEN $5 THEN updated_at ELSE $4 END,
       index_version = index_version + 1
     WHERE project_id = $1 AND id = $2`,
    [document.projectId, document.id, publication.id, options.now, options.preserveUpdatedAt ?? false],
  );
  await insertPublicationEvent(
    tx,
    document,
    wasPublished ? 'update' : 'publish',
    publication.id,
    options.now,
  );
  const references = extractReferences(document.metadata, document.content);
  await documentQueries(tx).replaceReferences(
    document.projectId,
    document.id,
    'publication',
    references.rows,
  );
  await enqueue(boss, tx, 'indexDocument', { projectId: document.projectId, documentId: document.id });
  return publication;
}

/** Unpublishes inside the caller's transaction: the event, no more publication references, an index job. */
export async function unpublishDocument(
  tx: Transaction,
  boss: Boss,
  document: DocumentRow,
  now: Date,
): Promise<void> {
  const previous = document.latestPublicationId;
  await tx.query(
    `UPDATE documents SET latest_publication_id = NULL, published_version = NULL, index_version = index_version + 1
     WHERE project_id = $1 AND id = $2`,
    [document.projectId, document.id],
  );
  await insertPublicationEvent(tx, document, 'unpublish', previous, now);
  await documentQueries(tx).replaceReferences(document.projectId, document.id, 'publication', []);
  await enqueue(boss, tx, 'indexDocument', { projectId: document.projectId, documentId: document.id });
}

async function insertPublicationEvent(
  tx: Transaction,
  document: DocumentRow,
  eventType: 'publish' | 'unpublish' | 'update',
  publicationId: number | null,
  now: Date,
): Promise<void> {
  // Event ids must become visible in id order, or a reader paging by id.gt could skip an event whose
  // transaction commits late. Holding a per-project lock until commit makes id order commit order.
  await tx.query(`SELECT pg_advisory_xact_lock(hashtext('publication_events'), $1)`, [document.projectId]);
  await tx.query(
    `INSERT INTO publication_events (project_id, channel_id, document_id, document_type, content_type, event_type,
       publication_id, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [
      document.projectId,
      document.channelId,
      document.id,
      document.documentType,
      document.contentType,
      eventType,
      publicationId,
      now,
    ],
  );
}
