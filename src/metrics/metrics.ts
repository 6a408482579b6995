import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Pool } from '../db/pool';
import { indexVerificationQueries, type IndexVerificationRow } from '../db/queries/index-verifications';
import { queueJobQueries, type PendingIndexDocuments, type QueueJobCounts } from '../db/queries/queue-jobs';
import { QUEUE_NAMES, QUEUES } from '../jobs/queues';
import type { SearchClient } from '../search/client';

/** How long one scrape may wait for Postgres or Elasticsearch before reporting them down. */
export const PROBE_TIMEOUT_MS = 2000;
/** Scrapes closer together than this share one round of probes (two Prometheus servers, a dashboard). */
const PROBE_REUSE_MS = 1000;

const CLUSTER_STATUSES = ['green', 'yellow', 'red'] as const;
const DRIFT_KINDS = ['missing', 'stale', 'extra', 'rejected'] as const;

/** Label of every request no route matched: raw URLs would make one series per probe of a scanner. */
export const UNMATCHED_ROUTE = 'unmatched';

export interface MetricsDeps {
  pool: Pool;
  search: SearchClient;
  /** `api` or `workers`, as the `process` label of every series. */
  processRole: string;
}

/** What one scrape reads from Postgres and Elasticsearch, each part undefined when it could not be read. */
interface Probe {
  /**
   * The pool's connections, counted before the probe sent its own queries: counted after, a scrape saw its own
   * queries in line for a connection (pg-pool queues a query for a tick even when a connection is idle), so
   * `waiting` read 3 on an idle pool.
   */
  pool: { total: number; idle: number; waiting: number };
  queues: QueueJobCounts[] | undefined;
  indexDocuments: PendingIndexDocuments | undefined;
  verification: IndexVerificationRow | null | undefined;
  postgresUp: boolean;
  elasticsearch: { status: string; seconds: number } | undefined;
}

/**
 * The process's Prometheus registry and the metrics the code observes, built once in src/context.ts (never
 * at module level: two contexts in one process, as in the tests, keep separate registries). What is read
 * from Postgres and Elasticsearch (queue depths, drift, health) is read when scraped, with a timeout, so a
 * scrape answers within seconds even when a dependency is down.
 */
export function createMetrics(deps: MetricsDeps) {
  const registry = new Registry();
  registry.setDefaultLabels({ process: deps.processRole });
  // Process memory (RSS, heap), CPU, event loop lag, handles, GC.
  collectDefaultMetrics({ register: registry });

  const httpRequests = new Counter({
    name: 'broadsheet_http_requests_total',
    help: 'HTTP requests answered, by method, route template and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  });
  const httpDuration = new Histogram({
    name: 'broadsheet_http_request_duration_seconds',
    help: 'Time from a request arriving to its answer being sent, by method, route template and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const indexLag = new Histogram({
    name: 'broadsheet_index_lag_seconds',
    help: 'From a publication to its search document being written to Elasticsearch (observed by the indexer)',
    buckets: [0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 300, 900],
    registers: [registry],
  });
  const rateLimited = new Counter({
    name: 'broadsheet_rate_limited_requests_total',
    help: 'Requests refused with 429 because their API client used up its rate limit',
    registers: [registry],
  });
  const webhookCalls = new Counter({
    name: 'broadsheet_import_webhook_calls_total',
    help: 'Calls of import webhooks by outcome: delivered, failed (will retry), gave_up, refused (policy)',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });

  let lastProbe: { at: number; probe: Promise<Probe> } | undefined;
  const probe = (): Promise<Probe> => {
    const now = Date.now();
    if (!lastProbe || now - lastProbe.at > PROBE_REUSE_MS) {
      lastProbe = { at: now, probe: runProbe(deps) };
    }
    return lastProbe.probe;
  };

  new Gauge({
    name: 'broadsheet_queue_depth',
    help: 'Jobs waiting to run per queue (ready, retrying or scheduled)',
    labelNames: ['queue'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      for (const counts of (await probe()).queues ?? []) this.set({ queue: counts.queue }, counts.queued);
    },
  });
  new Gauge({
    name: 'broadsheet_queue_active_jobs',
    help: 'Jobs a worker is running now, per queue',
    labelNames: ['queue'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      for (const counts of (await probe()).queues ?? []) this.set({ queue: counts.queue }, counts.active);
    },
  });
  new Gauge({
    name: 'broadsheet_queue_failed_jobs',
    help: 'Jobs that failed for good (retries used up) per queue, until pg-boss deletes them',
    labelNames: ['queue'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      for (const counts of (await probe()).queues ?? []) this.set({ queue: counts.queue }, counts.failed);
    },
  });
  new Gauge({
    name: 'broadsheet_index_pending_documents',
    help: "Documents the index jobs name (one a publish job, an import batch's a batch job), waiting (queued) or being indexed (active)",
    labelNames: ['state'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      const pending = (await probe()).indexDocuments;
      if (!pending) return;
      this.set({ state: 'queued' }, pending.queued);
      this.set({ state: 'active' }, pending.active);
    },
  });
  new Gauge({
    name: 'broadsheet_index_drift_documents',
    help: 'Documents the last `broadsheet index verify` found out of line, by kind (absent: never verified)',
    labelNames: ['kind'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      const verification = (await probe()).verification;
      if (!verification) return;
      for (const kind of DRIFT_KINDS) this.set({ kind }, verification[kind]);
    },
  });
  new Gauge({
    name: 'broadsheet_index_last_verify_timestamp_seconds',
    help: 'When `broadsheet index verify` last ran (Unix time; 0: never)',
    registers: [registry],
    async collect() {
      this.reset();
      const verification = (await probe()).verification;
      if (verification) this.set(verification.verifiedAt.getTime() / 1000);
    },
  });
  new Gauge({
    name: 'broadsheet_postgres_up',
    help: 'Whether Postgres answered this scrape within 2 s',
    registers: [registry],
    async collect() {
      this.set((await probe()).postgresUp ? 1 : 0);
    },
  });
  new Gauge({
    name: 'broadsheet_pg_pool_connections',
    help: "The API's Postgres pool: open (total), idle, and requests waiting for a connection",
    labelNames: ['state'] as const,
    registers: [registry],
    async collect() {
      const pool = (await probe()).pool;
      this.set({ state: 'total' }, pool.total);
      this.set({ state: 'idle' }, pool.idle);
      this.set({ state: 'waiting' }, pool.waiting);
    },
  });
  new Gauge({
    name: 'broadsheet_pg_pool_max_connections',
    help: 'The most connections the Postgres pool opens (DATABASE_POOL_SIZE)',
    registers: [registry],
    collect() {
      this.set(deps.pool.options.max ?? 10);
    },
  });
  new Gauge({
    name: 'broadsheet_elasticsearch_up',
    help: "Whether Elasticsearch answered this scrape's cluster health request within 2 s",
    registers: [registry],
    async collect() {
      this.set((await probe()).elasticsearch ? 1 : 0);
    },
  });
  new Gauge({
    name: 'broadsheet_elasticsearch_cluster_status',
    help: 'The cluster health Elasticsearch reports: 1 for the current status, 0 for the others',
    labelNames: ['status'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      const elasticsearch = (await probe()).elasticsearch;
      if (!elasticsearch) return;
      for (const status of CLUSTER_STATUSES) this.set({ status }, elasticsearch.status === status ? 1 : 0);
    },
  });
  new Gauge({
    name: 'broadsheet_elasticsearch_health_seconds',
    help: 'How long the cluster health request of this scrape took',
    registers: [registry],
    async collect() {
      this.reset();
      const elasticsearch = (await probe()).elasticsearch;
      if (elasticsearch) this.set(elasticsearch.seconds);
    },
  });

  return {
    registry,
    httpRequests,
    httpDuration,
    indexLag,
    rateLimited,
    webhookCalls,
    /** The text Prometheus scrapes, and its content type. */
    async scrape(): Promise<{ contentType: string; body: string }> {
      return { contentType: registry.contentType, body: await registry.metrics() };
    },
  };
}

export type Metrics = ReturnType<typeof createMetrics>;

/** `work`, or a rejection `no answer within <ms> ms` when it has not settled by then. */
export function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

async function runProbe(deps: MetricsDeps): Promise<Probe> {
  const pool = { total: deps.pool.totalCount, idle: deps.pool.idleCount, waiting: deps.pool.waitingCount };
  const queues = withTimeout(queueJobQueries(deps.pool).countByQueue(QUEUE_NAMES), PROBE_TIMEOUT_MS);
  const indexDocuments = withTimeout(
    queueJobQueries(deps.pool).countIndexDocuments([QUEUES.indexDocument.name, QUEUES.indexDocuments.name]),
    PROBE_TIMEOUT_MS,
  );
  const verification = withTimeout(indexVerificationQueries(deps.pool).latest(), PROBE_TIMEOUT_MS);
  const started = process.hrtime.bigint();
  const health = deps.search.cluster.health(
    {},
    { requestTimeout: PROBE_TIMEOUT_MS, maxRetries: 0, signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) },
  );
  const [queueCounts, pending, latest, cluster] = await Promise.allSettled([
    queues,
    indexDocuments,
    verification,
    health,
  ]);
  return {
    pool,
    queues: queueCounts.status === 'fulfilled' ? queueCounts.value : undefined,
    indexDocuments: pending.status === 'fulfilled' ? pending.value : undefined,
    verification: latest.status === 'fulfilled' ? (latest.value ?? null) : undefined,
    postgresUp: queueCounts.status === 'fulfilled',
    elasticsearch:
      cluster.status === 'fulfilled'
        ? {
            status: String(cluster.value.status),
            seconds: Number(process.hrtime.bigint() - started) / 1e9,
          }
        : undefined,
  };
}
