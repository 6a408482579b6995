import type { Transaction } from '../db/pool';
import { documentReferenceQueries } from '../db/queries/document-references';
import { documentQueries, type DocumentRow } from '../db/queries/documents';
import { publicationEventQueries } from '../db/queries/publication-events';
import { publicationQueries, type PublicationRow } from '../db/queries/publications';
import { extractReferences } from '../domain/references';
import { enqueue, type Boss } from '../jobs/boss';

export interface PublishOptions {
  now: Date;
  /** 2026-03 `preserveUpdatedAt`: lastPublicationDate takes the document's (kept) updated_at. */
  preserveUpdatedAt?: boolean;
  /** lastPublicationDate stays as it was (a republish of the system's own, see RunDocumentCommandsInput). */
  keepLastPublicationDate?: boolean;
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
  await documentQueries(tx).markPublished(document.projectId, document.id, {
    id: publication.id,
    now: options.now,
    preserveUpdatedAt: options.preserveUpdatedAt ?? false,
    keepLastPublicationDate: options.keepLastPublicationDate ?? false,
  });
  const wasPublished = document.latestPublicationId !== null;
  await insertEvent(tx, document, wasPublished ? 'update' : 'publish', publication.id, options.now);
  const references = extractReferences(document.metadata, document.content);
  await documentReferenceQueries(tx).replace(document.projectId, document.id, 'publication', references.rows);
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
  await documentQueries(tx).markUnpublished(document.projectId, document.id);
  await insertEvent(tx, document, 'unpublish', document.latestPublicationId, now);
  await documentReferenceQueries(tx).replace(document.projectId, document.id, 'publication', []);
  await enqueue(boss, tx, 'indexDocument', { projectId: document.projectId, documentId: document.id });
}

function insertEvent(
  tx: Transaction,
  document: DocumentRow,
  eventType: 'publish' | 'unpublish' | 'update',
  publicationId: number | null,
  now: Date,
): Promise<void> {
  return publicationEventQueries(tx).insert({
    projectId: document.projectId,
    channelId: document.channelId,
    documentId: document.id,
    documentType: document.documentType,
    contentType: document.contentType,
    eventType,
    publicationId,
    createdAt: now,
  });
}
