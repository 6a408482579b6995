import { loadConfig } from '../src/config';
import { createContext, type AppContext } from '../src/context';
import { QUEUES } from '../src/jobs/queues';
import { HANDLERS } from './handlers';
import { checkHandlers } from './registry';

/** Registers every queue handler on the context's pg-boss. Used by the worker process and by tests. */
export async function startWorkers(ctx: AppContext): Promise<void> {
  checkHandlers(HANDLERS);
  for (const handler of HANDLERS) {
    const queue = QUEUES[handler.queue];
    await ctx.boss.work(
      queue.name,
      {
        batchSize: handler.batchSize,
        pollingIntervalSeconds: handler.pollingIntervalSeconds ?? 0.5,
        // While LISTEN/NOTIFY is up, notifications wake the worker; polling is only the backstop.
        notifyPollingIntervalSeconds: 2,
      },
      async (jobs) => {
        const parsed = jobs.map((job) => ({ id: job.id, data: queue.payload.parse(job.data) }));
        // Every job of a batch carries the batch's signal (pg-boss aborts it at expiry).
        await handler.handle(ctx, parsed, jobs[0]?.signal);
      },
    );
  }
}

async function main() {
  const ctx = await createContext(loadConfig(), { supervise: true });
  await startWorkers(ctx);
  ctx.logger.info(`Broadsheet workers running: ${HANDLERS.map((h) => QUEUES[h.queue].name).join(', ')}`);
  const shutdown = () => {
    ctx.logger.info('workers shutting down: finishing active jobs');
    ctx.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
}

if (require.main === module) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
