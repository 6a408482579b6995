import type { Config } from './config';
import { closeApiClientLookup } from './db/api-client-cache';
import { createPool, type Pool } from './db/pool';
import { startBoss, type Boss } from './jobs/boss';
import { createLogger, type Logger } from './logger';
import { createSearchClient, type SearchClient } from './search/client';
import { publicationsIndex, type PublicationsIndex } from './search/index-names';

/** The long-lived resources a process shares: one pool, one pg-boss, one Elasticsearch client. */
export interface AppContext {
  config: Config;
  logger: Logger;
  pool: Pool;
  boss: Boss;
  search: SearchClient;
  index: PublicationsIndex;
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
  return {
    config,
    logger,
    pool,
    boss,
    search,
    index: publicationsIndex(config.elasticsearch.indexPrefix),
    async close() {
      await boss.stop({ graceful: true, timeout: 10_000 });
      await search.close();
      await closeApiClientLookup(pool);
      await pool.end();
    },
  };
}
