import { QUEUES } from '../src/jobs/queues';
import { searchDocumentId } from '../src/search/document-builder';
import { indexDocuments } from '../src/search/indexer';
import type { QueueHandler } from './registry';

/**
 * Outbox jobs of publish/unpublish → one bulk request per batch of `batchSize` (INDEXER_BATCH_SIZE). A document
 * Elasticsearch refuses for good (a mapping or parsing error) is recorded in index_rejections by the indexer and
 * its job completes: a retry would be refused the same way until the document changes, and that change brings a
 * job of its own. Jobs whose documents Elasticsearch keeps refusing for now (429/5xx after in-process backoff)
 * are failed alone, so pg-boss retries just them; the rest of the batch completes.
 */
export function indexDocumentHandler(batchSize: number): QueueHandler<'indexDocument'> {
  return {
    queue: 'indexDocument',
    batchSize,
    handle: async (ctx, jobs, signal) => {
      const outcome = await indexDocuments(
        { db: ctx.pool, search: ctx.search, index: ctx.index, logger: ctx.logger },
        jobs.map((job) => job.data),
        signal ? { signal } : {},
      );
      if (outcome.retryable.length === 0) return;
      const retryable = new Set(
        outcome.retryable.map((key) => searchDocumentId(key.projectId, key.documentId)),
      );
      const failedJobs = jobs.filter((job) =>
        retryable.has(searchDocumentId(job.data.projectId, job.data.documentId)),
      );
      await ctx.boss.fail(
        QUEUES.indexDocument.name,
        failedJobs.map((job) => job.id),
        { reason: 'Elasticsearch is refusing writes for now', documents: outcome.retryable },
      );
    },
  };
}
