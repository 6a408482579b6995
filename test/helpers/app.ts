import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { loadConfig } from '../../src/config';
import { createContext, type AppContext } from '../../src/context';
import { createApp } from '../../src/http/app';

export interface TestApp {
  ctx: AppContext;
  url: string;
  close(): Promise<void>;
}

/** The real app, in-process on port 0, against the run's Postgres database and Elasticsearch. */
export async function startTestApp(env: Record<string, string> = {}): Promise<TestApp> {
  const config = loadConfig({ ...process.env, ...env });
  const ctx = await createContext(config);
  const app = createApp(ctx);
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const { port } = server.address() as AddressInfo;
  return {
    ctx,
    url: `http://127.0.0.1:${port}`,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await ctx.close();
    },
  };
}
