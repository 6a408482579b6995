import type { RequestHandler } from 'express';
import type { Config } from './config';
import { createCommands, type Commands } from './commands';
import { ApiClientCache } from './db/api-client-cache';
import { AuthFailureLimiter } from './db/auth-failure-limiter';
import { MetricsTokenFailures } from './http/metrics-token-failures';
import { createPool, databaseStartError, type Pool } from './db/pool';
import { ProjectConfigCache } from './db/project-config-cache';
import { RateLimitCounter } from './db/rate-limit-counter';
import { ServedImageCache } from './db/served-image-cache';
import { publicAddressPolicy, type PublicAddressPolicy } from './domain/public-addresses';
import { cursorCodec, type CursorCodec } from './domain/search-cursor';
import { guardSecretChecks, type SecretCheckGuard } from './http/middleware/auth-failures';
import { authenticate } from './http/middleware/authenticate';
import { rateLimit } from './http/middleware/rate-limit';
import { QueryCache } from './http/query-cache';
import { startBoss, type Boss } from './jobs/boss';
import { createLogger, type Logger } from './logger';
import { createMetrics, type Metrics } from './metrics/metrics';
import { createReads, type Reads } from './reads';
import { SearchAnswerCache } from './reads/search-answer-cache';
import { createSearchClient, searchReadOptions, type SearchClient } from './search/client';
import { publicationsIndex, type PublicationsIndex } from './search/index-names';
import { DecodeBudget, decodeBudgetPixels } from './media/decode-budget';
import { createObjectStore } from './storage/create-object-store';
import type { ObjectStore } from './storage/object-store';
import { WindowSettler } from './search/visibility';

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
  /**
   * The one authentication middleware, with its verified-token cache and JWKS client, followed by the API
   * client's rate limit.
   */
  auth: RequestHandler[];
  /** Each API client's requests per window, shared with the other API processes through Postgres. */
  rateLimits: RateLimitCounter;
  /** Checks of client secrets under the failed-attempt limits per address and per client (shared likewise). */
  secretChecks: SecretCheckGuard;
  /** Wrong METRICS_TOKEN guesses per client address, under the same limit (AUTH_FAILURE_LIMIT), shared likewise. */
  metricsTokenFailures: MetricsTokenFailures;
  /** The process's Prometheus registry and the metrics the code observes (README, "Metrics"). */
  metrics: Metrics;
  /** Which addresses calls made for clients (import webhooks) may reach. */
  addresses: PublicAddressPolicy;
  /** Parsed query strings of the hot list routes. */
  queryCache: QueryCache;
  /** Closes the indexer's search write windows after a shared refresh, without holding up its jobs. */
  windowSettler: WindowSettler;
  /** Search answers per project and query, dropped on the indexer's notifications (starts at the first search). */
  searchAnswers: SearchAnswerCache;
  /** serve-image's servable keys per project, dropped on media entry notifications (starts at the first image). */
  servedImages: ServedImageCache;
  /** Signs search cursors and opens the ones clients send back, with the key of config.search. */
  cursors: CursorCodec;
  /** Where media bytes live (config.media.storage): a local folder or an S3-compatible bucket. */
  objects: ObjectStore;
  /** The pixels this process may be decoding at once for image checks of uploads and imports. */
  decodeBudget: DecodeBudget;
  reads: Reads;
  commands: Commands;
  close(): Promise<void>;
}

export async function createContext(
  config: Config,
  options: {
    supervise?: boolean;
    /** The `process` label of the metrics: `api` (default), `workers` or `cli`. */
    role?: string;
  } = {},
): Promise<AppContext> {
  const logger = createLogger(config.logLevel);
  const pool = createPool(config.database.url, config.database.poolSize, {
    connectTimeoutMs: config.database.connectTimeoutMs,
    poolWaitMs: config.database.poolWaitMs,
    queryTimeoutMs: config.database.queryTimeoutMs,
    statementTimeoutMs: config.database.statementTimeoutMs,
  });
  // The process's first connection, opened by this pool under its bounds: where a wrong or unreachable
  // DATABASE_URL shows, as migrate shows it. pg-boss opened it, and its start asks twice (its first query, a
  // version probe, swallows the failure), so a Postgres that never answers was named after twice the connect
  // timeout (pg-boss's own 10 s each, before startBoss took the pool's bounds).
  await pool.query('SELECT 1').catch(async (error: unknown) => {
    await pool.end().catch(() => undefined);
    throw databaseStartError(config.database.url, error);
  });
  // pg-boss's own pool (job fetches and completions, its maintenance, and its schema migrations at start) is
  // not bounded by query timeouts: a migration of a large job table must not be cut, nor a maintenance pass
  // that would then be cut again every time; its connections open under this pool's bounds. The jobs the app
  // sends go through this pool, in the sender's transaction.
  const boss = await startBoss(config.database.url, {
    supervise: options.supervise ?? false,
    timeouts: config.database,
  }).catch((error: unknown) => {
    throw databaseStartError(config.database.url, error);
  });
  const search = createSearchClient(config.elasticsearch.urls);
  const index = publicationsIndex(config.elasticsearch.indexPrefix, {
    replicas: config.elasticsearch.replicas,
  });
  const apiClients = new ApiClientCache(pool);
  const projectConfigs = new ProjectConfigCache(pool);
  const cursors = cursorCodec(config.search.cursorKey);
  const rateLimits = new RateLimitCounter(pool, logger);
  const metrics = createMetrics({ pool, search, processRole: options.role ?? 'api' });
  const objects = createObjectStore(config.media.storage, config.media.cacheBytes);
  const addresses = publicAddressPolicy();
  const decodeBudget = new DecodeBudget(decodeBudgetPixels(config.mediaLibrary.maxImagePixels));
  const searchAnswers = new SearchAnswerCache(pool, config.searchCache);
  const servedImages = new ServedImageCache(pool);
  const windowSettler = new WindowSettler({ db: pool, search, alias: index.alias, logger });
  return {
    config,
    logger,
    pool,
    boss,
    search,
    index,
    apiClients,
    projectConfigs,
    auth: [
      ...authenticate(apiClients, { ...config.auth, defaultRateLimit: config.rateLimits.defaultLimit }),
      rateLimit(rateLimits, metrics),
    ],
    rateLimits,
    secretChecks: guardSecretChecks(
      new AuthFailureLimiter(pool, logger, config.rateLimits.authFailures),
      metrics,
    ),
    metricsTokenFailures: new MetricsTokenFailures(pool, logger, config.rateLimits.authFailures.perAddress),
    metrics,
    addresses,
    queryCache: new QueryCache(),
    cursors,
    objects: objects.store,
    decodeBudget,
    searchAnswers,
    servedImages,
    windowSettler,
    reads: createReads({
      pool,
      search,
      index,
      cursors,
      searchReadOptions: searchReadOptions(config.elasticsearch.urls.length),
      publicBaseUrl: config.http.publicBaseUrl,
      answers: searchAnswers,
      servedImages,
      logger,
    }),
    commands: createCommands({
      pool,
      boss,
      objects: objects.store,
      logger,
      mediaLibrary: config.mediaLibrary,
      addresses,
      decodeBudget,
      jwtSecret: config.auth.jwtSecret,
      jwtStamp: { issuer: config.auth.issuer, audience: config.auth.audience },
    }),
    async close() {
      await boss.stop({ graceful: true, timeout: 10_000 });
      // The windows of the last index jobs: closed after their refresh, before the client goes.
      await windowSettler.drain();
      await rateLimits.close();
      await search.close();
      await apiClients.close();
      await searchAnswers.close();
      await servedImages.close();
      projectConfigs.close();
      await pool.end();
      objects.close();
    },
  };
}
