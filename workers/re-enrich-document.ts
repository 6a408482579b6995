import { enrichDocument, EnrichmentFailure } from '../src/commands/enrich-document';
import { AppError } from '../src/domain/errors';
import { QUEUES } from '../src/jobs/queues';
import type { QueueHandler } from './registry';

/**
 * Runs re-enrich jobs, one document each (src/commands/enrich-document.ts). A failed attempt (the service slow,
 * failing or answering nonsense, or the document changed meanwhile) is logged with its reason and thrown, so
 * pg-boss retries it with backoff; the last attempt says that it gives up. The document is left as it was.
 */
export const reEnrichDocumentHandler: QueueHandler<'reEnrichDocument'> = {
  queue: 'reEnrichDocument',
  batchSize: 1,
  async handle(ctx, jobs, signal) {
    for (const job of jobs) {
      // Past the queue's expiry pg-boss has already failed the batch (it runs again): stop, do not finish.
      signal?.throwIfAborted();
      const attempt = (job.retryCount ?? 0) + 1;
      try {
        const result = await enrichDocument(ctx, job.data, { now: new Date(), signal });
        ctx.logger.info({ jobId: job.id, ...job.data, attempt, ...result }, 'enrichment done');
      } catch (error) {
        if (error instanceof EnrichmentFailure || error instanceof AppError) {
          const retryLimit = QUEUES.reEnrichDocument.options.retryLimit;
          const givingUp = attempt > retryLimit;
          ctx.logger[givingUp ? 'error' : 'warn'](
            { jobId: job.id, ...job.data, attempt, attempts: retryLimit + 1, reason: error.message },
            givingUp
              ? 'enrichment given up after its last attempt; the document is left as it was'
              : 'enrichment attempt failed; it will be retried',
          );
        }
        throw error;
      }
    }
  },
};
