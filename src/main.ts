import type { AddressInfo } from 'node:net';
import { loadConfig } from './config';
import { createContext } from './context';
import { createApp } from './http/app';
import { closeGracefully, listen, listenStartError } from './http/server';
import { setHeapGrowth } from './heap-growth';
import { exitAfterLogs } from './logger';

/** Starts the HTTP API. Workers run in their own process (`npm run workers`). */
async function main() {
  const config = loadConfig(process.env, { server: true });
  setHeapGrowth(config.heapGrowingPercent);
  const ctx = await createContext(config);
  if (!config.auth.jwtSecretConfigured && !config.auth.jwksUrl) {
    ctx.logger.warn(
      'BROADSHEET_INSECURE_DEV_SECRET: no JWT_SECRET, only tokens signed by this process are accepted',
    );
  }
  const app = createApp(ctx);
  const server = await listen(app, config.http.port, config.http.host, config).catch((error: unknown) => {
    throw listenStartError(error, config.http.host, config.http.port, 'HOST, PORT');
  });
  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    ctx.logger.info({ signal }, 'shutting down: finishing in-flight requests');
    closeGracefully(server)
      .then(() => ctx.close())
      .then(
        () => exitAfterLogs(ctx.logger, 0),
        () => exitAfterLogs(ctx.logger, 1),
      );
    setTimeout(() => process.exit(1), 15_000).unref();
  };
  // Before saying "listening": a supervisor (npm, systemd, a test) may send SIGTERM as soon as it reads the
  // line, and one that arrived before the handler was in place killed the process without a drain (seen on a
  // loaded machine: the log line written, the process preempted, the signal taken with the default action).
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));

  // The bound port, not the configured one: PORT=0 picks a free port.
  const { port } = server.address() as AddressInfo;
  ctx.logger.info(`Broadsheet API listening on http://${config.http.host}:${port}`);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
