import { runScheduledPublish } from '../src/commands/run-scheduled-publication';
import type { QueueHandler } from './registry';

/** Publishes documents whose publish schedule is due; idempotent (see runScheduledPublish). */
export const scheduledPublishHandler: QueueHandler<'scheduledPublish'> = {
  queue: 'scheduledPublish',
  batchSize: 1,
  async handle(ctx, jobs) {
    for (const job of jobs) {
      const outcome = await runScheduledPublish(ctx.pool, ctx.boss, job.data, new Date());
      ctx.logger.info({ jobId: job.id, ...job.data, outcome }, 'scheduled publish');
    }
  },
};
