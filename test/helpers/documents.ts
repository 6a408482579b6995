import { publishDocument, unpublishDocument } from '../../src/commands/publish-document';
import type { AppContext } from '../../src/context';
import { withTransaction } from '../../src/db/pool';
import { documentQueries } from '../../src/db/queries/documents';
import type { Content, Metadata } from '../../src/domain/content';
import { indexDocuments } from '../../src/search/indexer';
import { indexDocumentHandler } from '../../workers/index-document';
import { indexDocumentsHandler } from '../../workers/index-documents';
import { workHandler } from '../../workers/main';

export interface PublishedDocumentInput {
  contentType?: string;
  documentType?: 'article' | 'page' | 'data-record';
  metadata?: Metadata;
  content?: Content;
  channelId?: number;
  /** The publish time (firstPublicationDate on the first publish, lastPublicationDate always). */
  now?: Date;
  embargoUntil?: Date;
  /** The design the document is written against (none when absent). */
  design?: { name: string; version: string };
}

/**
 * Until the import endpoint is everyone's way in: a document row straight in SQL, then the real
 * publishDocument (publication, dates, event, references, index job) in one transaction.
 */
export async function createPublishedDocument(
  ctx: AppContext,
  projectId: number,
  input: PublishedDocumentInput = {},
): Promise<{ documentId: number; publicationId: number }> {
  return withTransaction(ctx.pool, async (tx) => {
    const channel = await tx.query<{ id: number }>(
      'SELECT id FROM channels WHERE project_id = $1 ORDER BY is_default DESC, id LIMIT 1',
      [projectId],
    );
    const inserted = await tx.query<{ id: number }>(
      `INSERT INTO documents (project_id, channel_id, document_type, content_type, metadata, content,
         embargo_set, embargo_until, design_name, design_version)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING id`,
      [
        projectId,
        input.channelId ?? channel.rows[0]!.id,
        input.documentType ?? 'article',
        input.contentType ?? 'regular',
        JSON.stringify(input.metadata ?? {}),
        JSON.stringify(input.content ?? []),
        input.embargoUntil !== undefined,
        input.embargoUntil ?? null,
        input.design?.name ?? null,
        input.design?.version ?? null,
      ],
    );
    const documentId = inserted.rows[0]!.id;
    const document = (await documentQueries(tx).findByIdForUpdate(projectId, documentId))!;
    const publication = await publishDocument(tx, ctx.boss, document, { now: input.now ?? new Date() });
    return { documentId, publicationId: publication.publicationId };
  });
}

/** Publishes the document's draft again, optionally with new metadata. */
export async function republishDocument(
  ctx: AppContext,
  projectId: number,
  documentId: number,
  metadata?: Metadata,
): Promise<number> {
  return withTransaction(ctx.pool, async (tx) => {
    if (metadata) {
      await tx.query(
        'UPDATE documents SET metadata = $3, version = version + 1 WHERE project_id = $1 AND id = $2',
        [projectId, documentId, JSON.stringify(metadata)],
      );
    }
    const document = (await documentQueries(tx).findByIdForUpdate(projectId, documentId))!;
    return (await publishDocument(tx, ctx.boss, document, { now: new Date() })).publicationId;
  });
}

export async function unpublish(ctx: AppContext, projectId: number, documentId: number): Promise<void> {
  await withTransaction(ctx.pool, async (tx) => {
    const document = (await documentQueries(tx).findByIdForUpdate(projectId, documentId))!;
    await unpublishDocument(tx, ctx.boss, document);
  });
}

/** Indexes the documents right away and makes them searchable (tests may refresh; the product never does). */
export async function indexNow(ctx: AppContext, projectId: number, documentIds: number[]): Promise<void> {
  await indexDocuments(
    { db: ctx.pool, search: ctx.search, index: ctx.index },
    documentIds.map((documentId) => ({ projectId, documentId })),
  );
  await ctx.search.indices.refresh({ index: ctx.index.alias });
}

/** Runs only the index handlers (per document, and per import batch) on this context's pg-boss, as the worker process would. */
export async function startIndexWorker(ctx: AppContext): Promise<void> {
  await workHandler(ctx, indexDocumentHandler(50));
  await workHandler(ctx, indexDocumentsHandler(50));
}
