import type { AppContext } from '../src/context';
import { withTransaction } from '../src/db/pool';
import { enqueue } from '../src/jobs/boss';
import { settleIndexJob } from '../src/jobs/index-jobs';
import { INDEX_JOB_BUDGET_SECONDS, QUEUES } from '../src/jobs/queues';
import { indexDocuments } from '../src/search/indexer';
import { slicesOf } from '../src/slices';
import { observeIndexLag } from './index-document';
import type { QueueHandler, QueueJob } from './registry';

/** Most index-documents jobs a worker takes at once: more small imports' jobs per fetch, within the budget. */
const JOBS_PER_FETCH = 4;

/**
 * The index jobs of import batches, a few per fetch (each names up to INDEX_JOB_MAX_DOCUMENTS documents), in
 * turn: a job's documents go to Elasticsearch in bulk requests of `batchSize` (INDEXER_BATCH_SIZE), each
 * through the same indexer as the per-document jobs, so a document refused for good is recorded in
 * index_rejections and the rest are written. The jobs of a fetch expire together, counted from the fetch, so
 * the fetch gets INDEX_JOB_BUDGET_SECONDS in all: what is left when that is up (documents not reached, and
 * documents still refused for now) is handed to new jobs and the job completes; only a job none of whose
 * documents got anywhere fails, for pg-boss to retry it whole (see settleIndexJob). Duplicates and stale jobs
 * are harmless: every write carries the document's index_version.
 */
export function indexDocumentsHandler(batchSize: number): QueueHandler<'indexDocuments'> {
  return {
    queue: 'indexDocuments',
    batchSize: JOBS_PER_FETCH,
    handle: async (ctx, jobs, signal) => {
      const deadline = Date.now() + INDEX_JOB_BUDGET_SECONDS * 1000;
      for (const [position, job] of jobs.entries()) {
        // The first job of a fetch always gets one bulk request, so every fetch makes headway.
        await runIndexJob(ctx, job, { batchSize, signal, deadline, mayStopBeforeStart: position > 0 });
      }
    },
  };
}

async function runIndexJob(
  ctx: AppContext,
  job: QueueJob<'indexDocuments'>,
  options: {
    batchSize: number;
    signal: AbortSignal | undefined;
    deadline: number;
    mayStopBeforeStart: boolean;
  },
): Promise<void> {
  const { batchSize, signal, deadline } = options;
  const { projectId } = job.data;
  const documentIds = [...new Set(job.data.documentIds)];
  const sentAt = job.data.sentAt ? Date.parse(job.data.sentAt) : job.createdOn?.getTime();
  const retryable: number[] = [];
  let reached = 0;
  for (const slice of slicesOf(documentIds, batchSize)) {
    if ((reached > 0 || options.mayStopBeforeStart) && Date.now() > deadline) break;
    const keys = slice.map((documentId) => ({ projectId, documentId }));
    const outcome = await indexDocuments(
      { db: ctx.pool, search: ctx.search, index: ctx.index, logger: ctx.logger, settler: ctx.windowSettler },
      keys,
      signal ? { signal } : {},
    );
    reached += slice.length;
    retryable.push(...outcome.retryable.map((key) => key.documentId));
    if (sentAt !== undefined) {
      observeIndexLag(
        ctx.metrics,
        keys.map((key) => ({ key, sentAt })),
        outcome.indexed,
      );
    }
  }
  const settlement = settleIndexJob(documentIds, { retryable, unreached: documentIds.slice(reached) });
  if (settlement.kind === 'done') return;
  if (settlement.kind === 'retry') {
    await ctx.boss.fail(QUEUES.indexDocuments.name, job.id, {
      reason: 'Elasticsearch is refusing writes for now',
      documents: retryable.map((documentId) => ({ projectId, documentId })),
    });
    return;
  }
  // Both new jobs or neither: a crash before the commit leaves this job to expire and run again whole.
  const first = sentAt === undefined ? {} : { sentAt: new Date(sentAt).toISOString() };
  const { retryDelay } = QUEUES.indexDocuments.options;
  await withTransaction(ctx.pool, async (tx) => {
    if (settlement.unreached.length > 0) {
      await enqueue(ctx.boss, tx, 'indexDocuments', {
        projectId,
        documentIds: settlement.unreached,
        ...first,
      });
    }
    if (settlement.retryable.length > 0) {
      await enqueue(
        ctx.boss,
        tx,
        'indexDocuments',
        { projectId, documentIds: settlement.retryable, ...first },
        { startAfter: new Date(Date.now() + retryDelay * 2 ** (job.retryCount ?? 0) * 1000) },
      );
    }
  });
  ctx.logger.info(
    {
      jobId: job.id,
      projectId,
      unreached: settlement.unreached.length,
      retryable: settlement.retryable.length,
    },
    'index job handed on what it left',
  );
}
