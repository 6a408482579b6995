import { runScheduledUnpublish } from '../src/commands/run-scheduled-publication';
import type { QueueHandler } from './registry';

/** Unpublishes documents whose unpublish schedule is due; idempotent (see runScheduledUnpublish). */
export const scheduledUnpublishHandler: QueueHandler<'scheduledUnpublish'> = {
  queue: 'scheduledUnpublish',
  batchSize: 1,
  async handle(ctx, jobs) {
    for (const job of jobs) {
      const outcome = await runScheduledUnpublish(ctx.pool, ctx.boss, job.data);
      ctx.logger.info({ jobId: job.id, ...job.data, outcome }, 'scheduled unpublish');
    }
  },
};
