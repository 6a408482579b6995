import { QUEUES } from '../src/jobs/queues';
import { searchDocumentId } from '../src/search/document-builder';
import { indexDocuments } from '../src/search/indexer';
import type { Metrics } from '../src/metrics/metrics';
import type { IndexedPublication } from '../src/search/indexer';
import type { DocumentKey } from '../src/db/queries/index-sources';
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
        {
          db: ctx.pool,
          search: ctx.search,
          index: ctx.index,
          logger: ctx.logger,
          settler: ctx.windowSettler,
        },
        jobs.map((job) => job.data),
        signal ? { signal } : {},
      );
      observeIndexLag(
        ctx.metrics,
        jobs.flatMap((job) => (job.createdOn ? [{ key: job.data, sentAt: job.createdOn.getTime() }] : [])),
        outcome.indexed,
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

/**
 * The index lag, publication → written to Elasticsearch, for each publication written by the job its own
 * transaction sent (`sentAt`: the job's createdOn, or for a job an index-documents job handed on, the first
 * job's; the publication's published_at is that transaction's now()). Writes caused otherwise (a duplicate
 * job, a config change re-indexing old publications, a retry of an unpublish) are not a publication waiting
 * to become searchable and are not counted. Per publication, whatever number of documents a job names.
 */
export function observeIndexLag(
  metrics: Metrics,
  sent: readonly { key: DocumentKey; sentAt: number }[],
  indexed: readonly IndexedPublication[],
  now = Date.now(),
): void {
  const sentAt = new Map(
    sent.map(({ key, sentAt }) => [searchDocumentId(key.projectId, key.documentId), sentAt]),
  );
  for (const publication of indexed) {
    const sentOn = sentAt.get(searchDocumentId(publication.key.projectId, publication.key.documentId));
    const publishedAt = publication.publishedAt.getTime();
    if (sentOn === undefined || Math.abs(sentOn - publishedAt) > SAME_TRANSACTION_MS) continue;
    metrics.indexLag.observe(Math.max(0, now - publishedAt) / 1000);
  }
}

/** Slack between the job's createdOn and the publication's published_at (both the transaction's now()). */
const SAME_TRANSACTION_MS = 1000;
