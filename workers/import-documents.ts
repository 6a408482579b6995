import { runImportJob } from '../src/commands/import-documents';
import type { QueueHandler } from './registry';

/** Runs `POST import/documents` jobs; a finished job is skipped, so a duplicate queue entry is harmless. */
export const importDocumentsHandler: QueueHandler<'importDocuments'> = {
  queue: 'importDocuments',
  batchSize: 1,
  async handle(ctx, jobs) {
    for (const job of jobs) {
      await runImportJob(ctx, job.data.importJobId);
      ctx.logger.info({ jobId: job.id, importJobId: job.data.importJobId }, 'import job done');
    }
  },
};
