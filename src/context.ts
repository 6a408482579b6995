import type { Config } from './config';
import { createCommands, type Commands } from './commands';
import { ApiClientCache } from './db/api-client-cache';
import { createPool, type Pool } from './db/pool';
import { ProjectConfigCache } from './db/project-config-cache';
import { cursorCodec, type CursorCodec } from './domain/search-cursor';
import { authenticate } from './http/middleware/authenticate';
import { QueryCache } from './http/query-cache';
import { startBoss, type Boss } from './jobs/boss';
import { createLogger, type Logger } from './logger';
import { createReads, type Reads } from './reads';
import { createSearchClient, searchReadOptions, type SearchClient } from './search/client';
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
  /** Projects (config and revision) in front of Postgres, for reads whose answer depends on the config. */
  projectConfigs: ProjectConfigCache;
  /** The one authentication middleware, with its verified-token cache and JWKS client. */
  auth: ReturnType<typeof authenticate>;
  /** Parsed query strings of the hot list routes. */
  queryCache: QueryCache;
  /** Signs search cursors and opens the ones clients send back, with the key of config.search. */
  cursors: CursorCodec;
  reads: Reads;
  commands: Commands;
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
  const index = publicationsIndex(config.elasticsearch.indexPrefix);
  const apiClients = new ApiClientCache(pool);
  const projectConfigs = new ProjectConfigCache(pool);
  const cursors = cursorCodec(config.search.cursorKey);
  return {
    config,
    logger,
    pool,
    boss,
    search,
    index,
    apiClients,
    projectConfigs,
    auth: authenticate(apiClients, config.auth),
    queryCache: new QueryCache(),
    cursors,
    reads: createReads({ pool, search, index, cursors, searchReadOptions: searchReadOptions() }),
    commands: createCommands({ pool, boss, jwtSecret: config.auth.jwtSecret }),
    async close() {
      await boss.stop({ graceful: true, timeout: 10_000 });
      await search.close();
      await apiClients.close();
      projectConfigs.close();
      await pool.end();
    },
  };
}
