import { deliverImportWebhook } from '../src/commands/deliver-import-webhook';
import type { QueueHandler } from './registry';

/**
 * Calls the webhooks of finished imports (src/commands/deliver-import-webhook.ts), one at a time: the
 * attempts and their backoff happen inside, each recorded on the import job, so a retried job (its worker
 * died) resumes where the last one stopped and a delivered webhook is never called again.
 */
export const importWebhookHandler: QueueHandler<'importWebhook'> = {
  queue: 'importWebhook',
  batchSize: 1,
  async handle(ctx, jobs, signal) {
    for (const job of jobs) {
      await deliverImportWebhook(
        {
          pool: ctx.pool,
          logger: ctx.logger,
          settings: ctx.config.webhooks,
          addresses: ctx.addresses,
          onOutcome: (outcome) => ctx.metrics.webhookCalls.inc({ outcome }),
        },
        job.data.importJobId,
        signal,
      );
    }
  },
};
