import type { Config } from './config';
import { ApiClientCache } from './db/api-client-cache';
import { createPool, type Pool } from './db/pool';
import { authenticate } from './http/middleware/authenticate';
import { startBoss, type Boss } from './jobs/boss';
import { createLogger, type Logger } from './logger';
import { createSearchClient, type SearchClient } from './search/client';
import { publicationsIndex, type PublicationsIndex } from './search/index-names';

/**
 * Everything long-lived a process has, built once here and nowhere else: the API, the workers and the CLI all
 * start from createContext. Modules get what they need from it as arguments; none builds a pool, a client or
 * a cache of its own, and nothing is created when a module is imported.
 */
export interface AppContext {
  config: Config;
  logger: Logger;
  pool: Pool;
  boss: Boss;
  search: SearchClient;
  index: PublicationsIndex;
  /** API clients by id in front of Postgres, evicted by Postgres notifications (starts at the first lookup). */
  apiClients: ApiClientCache;
  /** The one authentication middleware, with its verified-token cache and JWKS client. */
  auth: ReturnType<typeof authenticate>;
  close(): Promise<void>;
}

export async function createContext(
  config: Config,
  options: { supervise?: boolean } = {},
): Promise<AppContext> {
  const logger = createLogger(config.logLevel);
  const pool = createPool(config.database.url, config.database.poolSize);
  const boss = await startBoss(config.database.url, { supervise: options.supervise ?? false });
  const search = createSearchClient(config.elasticsearch.url);
  const apiClients = new ApiClientCache(pool);
  return {
    config,
    logger,
    pool,
    boss,
    search,
    index: publicationsIndex(config.elasticsearch.indexPrefix),
    apiClients,
    auth: authenticate(apiClients, config.auth),
    async close() {
      await boss.stop({ graceful: true, timeout: 10_000 });
      await search.close();
      await apiClients.close();
      await pool.end();
    },
  };
}
