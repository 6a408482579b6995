import type { AddressInfo } from 'node:net';
import { loadConfig } from '../src/config';
import { setHeapGrowth } from '../src/heap-growth';
import { createContext, type AppContext } from '../src/context';
import { QUEUES } from '../src/jobs/queues';
import { listenStartError } from '../src/http/server';
import { exitAfterLogs } from '../src/logger';
import { startMetricsServer } from '../src/metrics/server';
import { queueHandlers } from './handlers';
import { checkHandlers, FETCH_OPTIONS, type QueueHandler } from './registry';

/** Registers every queue handler on the context's pg-boss. Used by the worker process and by tests. */
export async function startWorkers(ctx: AppContext): Promise<string[]> {
  const handlers = queueHandlers(ctx.config);
  checkHandlers(handlers);
  for (const handler of handlers) await workHandler(ctx, handler);
  return handlers.map((handler) => QUEUES[handler.queue].name);
}

/** Registers one queue handler on the context's pg-boss, as the worker process does (tests run a few alone). */
export async function workHandler(ctx: AppContext, handler: QueueHandler): Promise<void> {
  const queue = QUEUES[handler.queue];
  await ctx.boss.work(
    queue.name,
    {
      batchSize: handler.batchSize,
      pollingIntervalSeconds: handler.pollingIntervalSeconds ?? 0.5,
      ...FETCH_OPTIONS,
      // createdOn: the index lag is measured only for the job its publication's transaction sent.
      includeMetadata: true,
    },
    async (jobs) => {
      const parsed = jobs.map((job) => ({
        id: job.id,
        data: queue.payload.parse(job.data),
        retryCount: job.retryCount,
        createdOn: job.createdOn,
      }));
      // Every job of a batch carries the batch's signal (pg-boss aborts it at expiry).
      await handler.handle(ctx, parsed, jobs[0]?.signal);
    },
  );
}

async function main() {
  const config = loadConfig(process.env, { server: true, signsCursors: false });
  setHeapGrowth(config.heapGrowingPercent);
  const ctx = await createContext(config, {
    supervise: true,
    role: 'workers',
  });
  const { metrics: metricsConfig, http } = ctx.config;
  const port = metricsConfig.workerPort;
  const metricsServer =
    port === undefined
      ? undefined
      : await startMetricsServer(ctx.metrics, {
          host: http.host,
          port,
          token: metricsConfig.token,
          health: ctx.reads.health,
          tokenFailures: ctx.metricsTokenFailures,
        }).catch((error: unknown) => {
          throw listenStartError(error, http.host, port, 'HOST, WORKER_METRICS_PORT');
        });
  const shutdown = () => {
    ctx.logger.info('workers shutting down: finishing active jobs');
    metricsServer?.close();
    ctx.close().then(
      () => exitAfterLogs(ctx.logger, 0),
      () => exitAfterLogs(ctx.logger, 1),
    );
  };
  // Before saying "running": a SIGTERM that follows the line at once must find the handler in place.
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
  const queues = await startWorkers(ctx);
  ctx.logger.info(`Broadsheet workers running: ${queues.join(', ')}`);
  if (metricsServer) {
    const { port } = metricsServer.address() as AddressInfo;
    ctx.logger.info(
      `Broadsheet workers metrics on http://${http.host}:${port}/metrics, probes on /health and /health/ready`,
    );
  }
}

if (require.main === module) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
