import type { Transaction } from '../db/pool';
import { documentReferenceQueries } from '../db/queries/document-references';
import { documentQueries, type DocumentRow } from '../db/queries/documents';
import { publicationEventQueries, type NewPublicationEvent } from '../db/queries/publication-events';
import { extractReferences, type ReferenceRow } from '../domain/references';
import { enqueue, type Boss } from '../jobs/boss';

export interface PublishOptions {
  now: Date;
  /** 2026-03 `preserveUpdatedAt`: lastPublicationDate takes the document's (kept) updated_at. */
  preserveUpdatedAt?: boolean;
  /** lastPublicationDate stays as it was (a republish of the system's own, see RunDocumentCommandsInput). */
  keepLastPublicationDate?: boolean;
}

/**
 * A publish or unpublish whose documents and publications rows are written, and what it still has to write:
 * its event, its publication's references, an index job (see completePublicationChanges).
 */
export interface PublicationChange {
  /** The document row as the change left it (still locked). */
  document: DocumentRow;
  event: NewPublicationEvent;
  /** The references of the document's latest publication now: none once unpublished. */
  publicationReferences: ReferenceRow[];
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
): Promise<{ publicationId: number }> {
  const change = await writePublish(tx, document, options);
  await completePublicationChanges(tx, boss, document, { changes: [change] });
  return { publicationId: change.publicationId };
}

/** Unpublishes inside the caller's transaction: the event, no more publication references, an index job. */
export async function unpublishDocument(tx: Transaction, boss: Boss, document: DocumentRow): Promise<void> {
  const change = await writeUnpublish(tx, document);
  await completePublicationChanges(tx, boss, document, { changes: [change] });
}

/** The publication and the document's publication state of a publish; the rest is left to complete. */
export async function writePublish(
  tx: Transaction,
  document: DocumentRow,
  options: PublishOptions,
): Promise<PublicationChange & { publicationId: number }> {
  const published = await documentQueries(tx).publishDraft(document.projectId, document.id, {
    now: options.now,
    preserveUpdatedAt: options.preserveUpdatedAt ?? false,
    keepLastPublicationDate: options.keepLastPublicationDate ?? false,
  });
  const wasPublished = document.latestPublicationId !== null;
  return {
    publicationId: published.publicationId,
    document: published.document,
    event: eventOf(document, wasPublished ? 'update' : 'publish', published.publicationId),
    publicationReferences: extractReferences(document.metadata, document.content).rows,
  };
}

/** The document's publication state of an unpublish; the rest is left to complete. */
export async function writeUnpublish(tx: Transaction, document: DocumentRow): Promise<PublicationChange> {
  const { document: unpublished, unpublished: types } = await documentQueries(tx).markUnpublished(
    document.projectId,
    document.id,
  );
  // The event is the publication's: the draft's content type may have changed since it was published.
  const publication = {
    ...document,
    contentType: types.unpublishedContentType,
    documentType: types.unpublishedDocumentType as DocumentRow['documentType'],
  };
  return {
    document: unpublished,
    event: eventOf(publication, 'unpublish', document.latestPublicationId),
    publicationReferences: [],
  };
}

/**
 * The rest of a document's publication changes (in the order they were made), with the draft's new
 * references if it has them: the references in one statement, one index job, then the events. The events
 * come last because they take the project's event lock, which every publish of the project waits for until
 * this transaction commits: held for one statement and the commit, not for the writes before.
 */
export async function completePublicationChanges(
  tx: Transaction,
  boss: Boss,
  document: Pick<DocumentRow, 'projectId' | 'id'>,
  writes: { changes: readonly PublicationChange[]; draftReferences?: ReferenceRow[] },
): Promise<void> {
  const { changes, draftReferences } = writes;
  const last = changes.at(-1);
  await documentReferenceQueries(tx).replace(document.projectId, document.id, {
    ...(draftReferences && { draft: draftReferences }),
    ...(last && { publication: last.publicationReferences }),
  });
  if (last === undefined) return;
  await enqueue(boss, tx, 'indexDocument', { projectId: document.projectId, documentId: document.id });
  await publicationEventQueries(tx).insertMany(
    document.projectId,
    changes.map((change) => change.event),
  );
}

function eventOf(
  document: DocumentRow,
  eventType: 'publish' | 'unpublish' | 'update',
  publicationId: number | null,
): NewPublicationEvent {
  return {
    projectId: document.projectId,
    channelId: document.channelId,
    documentId: document.id,
    documentType: document.documentType,
    contentType: document.contentType,
    eventType,
    publicationId,
  };
}
