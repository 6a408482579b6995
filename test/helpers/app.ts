import type { AddressInfo } from 'node:net';
import type { Express } from 'express';
import { loadConfig } from '../../src/config';
import { createContext, type AppContext } from '../../src/context';
import { ensureDatabase, migrate } from '../../src/db/migrate';
import { createApp } from '../../src/http/app';
import { listen } from '../../src/http/server';
import { startWorkers } from '../../workers/main';

export interface TestApp {
  ctx: AppContext;
  /** The Express app being served, e.g. to read its routes. */
  app: Express;
  url: string;
  close(): Promise<void>;
}

/**
 * The real app, in-process on port 0, against the run's Postgres database and Elasticsearch; with
 * `workers: true` the queue handlers run in the same process (as `npm run workers` would).
 */
export async function startTestApp(
  options: { workers?: boolean; env?: Record<string, string> } = {},
): Promise<TestApp> {
  const config = loadConfig({ ...process.env, ...options.env }, { server: true });
  // With workers, the context supervises as the worker process's does (expired jobs retried within seconds,
  // the queue counts the workers' burst trigger reads).
  const ctx = await createContext(config, { supervise: options.workers ?? false });
  if (options.workers) await startWorkers(ctx);
  const app = createApp(ctx);
  const server = await listen(app, 0, '127.0.0.1', config);
  const { port } = server.address() as AddressInfo;
  return {
    ctx,
    app,
    url: `http://127.0.0.1:${port}`,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await ctx.close();
    },
  };
}

/**
 * An environment of its own for a test file that rebuilds or verifies the index: a fresh database (so its
 * queue jobs are taken by its own workers only) and its own index prefix (so other files' searches never
 * notice its alias swaps). Dropped with the run by global-teardown's prefix and the database name pattern.
 */
export async function isolatedEnv(suffix: string): Promise<Record<string, string>> {
  const base = new URL(process.env.DATABASE_URL ?? '');
  base.pathname = `${base.pathname}_${suffix}`;
  const databaseUrl = base.toString();
  await ensureDatabase(databaseUrl);
  await migrate(databaseUrl);
  return {
    DATABASE_URL: databaseUrl,
    ELASTICSEARCH_INDEX_PREFIX: `${process.env.ELASTICSEARCH_INDEX_PREFIX}-${suffix}`,
  };
}
