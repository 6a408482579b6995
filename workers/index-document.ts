import { QUEUES } from '../src/jobs/queues';
import { searchDocumentId } from '../src/search/document-builder';
import { indexDocuments } from '../src/search/indexer';
import type { QueueHandler } from './registry';

/**
 * Outbox jobs of publish/unpublish → one bulk request per batch of `batchSize` (INDEXER_BATCH_SIZE). Jobs whose document Elasticsearch rejects
 * or keeps refusing (429/5xx after in-process backoff) are failed alone, so pg-boss retries just them;
 * the rest of the batch completes.
 */
export function indexDocumentHandler(batchSize: number): QueueHandler<'indexDocument'> {
  return {
    queue: 'indexDocument',
    batchSize,
    handle: async (ctx, jobs) => {
      const outcome = await indexDocuments(
        { db: ctx.pool, search: ctx.search, index: ctx.index, logger: ctx.logger },
        jobs.map((job) => job.data),
      );
      const failed = new Set(
        [...outcome.retryable, ...outcome.rejected.map((item) => item.key)].map((key) =>
          searchDocumentId(key.projectId, key.documentId),
        ),
      );
      if (failed.size === 0) return;
      const failedJobs = jobs.filter((job) =>
        failed.has(searchDocumentId(job.data.projectId, job.data.documentId)),
      );
      await ctx.boss.fail(
        QUEUES.indexDocument.name,
        failedJobs.map((job) => job.id),
        { reason: 'search index write failed', documents: outcome.rejected },
      );
    },
  };
}
