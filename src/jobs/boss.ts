import pg from 'pg';
import { PgBoss, type ConstructorOptions } from 'pg-boss';
import { DEFAULT_POOL_TIMEOUTS, type PoolTimeouts, type Queryable } from '../db/pool';
import { QUEUES, type QueueKey, type QueueOptions, type QueuePayload } from './queues';

export type Boss = PgBoss;

/**
 * How often a supervising process (the workers) runs pg-boss's monitor: it fails active jobs past their
 * expiry or heartbeat, so they are retried, and refreshes the queue counts `index status` reads. pg-boss's
 * default of a minute would add up to a minute to every recovery after a crash. A supervising process also
 * re-reads those counts as often, for its workers' burst trigger (workers/registry.ts, FETCH_OPTIONS).
 */
const SUPERVISE_INTERVAL_SECONDS = 2;

/**
 * The pg-boss instance on the app's own database. `start()` creates its schema; every queue is created with
 * its options, or brought up to them when an older release created it with others.
 *
 * Its connections open under the app pool's bounds (`timeouts`: DATABASE_CONNECT_TIMEOUT_MS, and
 * DATABASE_POOL_WAIT_MS in line for a busy pool), as createPool's do: pg-boss's own fixed 10 s held a CLI
 * command against a Postgres that never answers for 10 s whatever the setting said (migrate gave up at it),
 * in other words ('timeout exceeded when trying to connect'). Its queries stay unbounded (see createContext).
 */
export async function startBoss(
  databaseUrl: string,
  options: { supervise: boolean; timeouts?: Pick<PoolTimeouts, 'connectTimeoutMs' | 'poolWaitMs'> } = {
    supervise: false,
  },
) {
  const { connectTimeoutMs, poolWaitMs } = options.timeouts ?? DEFAULT_POOL_TIMEOUTS;
  // pg-pool bounds both the wait in line and the opening of a new connection by its connectionTimeoutMillis;
  // a client of its own opens connections under the shorter bound (createPool's BoundedClient, without its
  // query bound).
  const openTimeoutMs = Math.min(connectTimeoutMs, poolWaitMs);
  class ConnectBoundedClient extends pg.Client {
    constructor(config?: pg.ClientConfig) {
      super({ ...config, connectionTimeoutMillis: openTimeoutMs });
    }
  }
  // pg-boss hands its options to pg.Pool as they are: `Client` is pg.Pool's, which pg-boss's types omit.
  const poolOptions: ConstructorOptions & Pick<pg.PoolConfig, 'Client'> = {
    connectionString: databaseUrl,
    connectionTimeoutMillis: poolWaitMs,
    Client: ConnectBoundedClient,
  };
  // LISTEN/NOTIFY: a job sent on a notify queue wakes its workers at the sender's commit instead of at their
  // next poll (one dedicated listening connection per process).
  const boss = new PgBoss({
    ...poolOptions,
    supervise: options.supervise,
    superviseIntervalSeconds: SUPERVISE_INTERVAL_SECONDS,
    monitorIntervalSeconds: SUPERVISE_INTERVAL_SECONDS,
    ...(options.supervise ? { queueCacheIntervalSeconds: SUPERVISE_INTERVAL_SECONDS } : {}),
    schedule: false,
    useListenNotify: true,
  });
  boss.on('error', (error: unknown) => {
    // Surface, never crash: pg-boss retries its own maintenance work. Its stack, not the object: pg's errors
    // carry their Client, which printed over a hundred lines of its internals (an operator's CLI import too).
    console.error('pg-boss error', error instanceof Error ? (error.stack ?? error.message) : error);
  });
  await boss.start();
  for (const queue of Object.values(QUEUES)) {
    const wanted = { ...queue.options, notify: true };
    const existing = await boss.getQueue(queue.name);
    if (!existing) {
      await boss.createQueue(queue.name, wanted);
      continue;
    }
    const changed = queueOptionsToUpdate(existing, wanted);
    if (changed) await boss.updateQueue(queue.name, changed);
  }
  return boss;
}

type WantedQueue = QueueOptions & { notify: boolean };

/** The options an existing queue lacks (queues made by older releases expire jobs after 15 minutes). */
export function queueOptionsToUpdate(
  existing: object,
  wanted: WantedQueue,
): Partial<WantedQueue> | undefined {
  const current = existing as Record<string, unknown>;
  const changed = Object.fromEntries(
    // A queue's policy is fixed at creation: pg-boss refuses to update it.
    Object.entries(wanted).filter(([key, value]) => key !== 'policy' && current[key] !== value),
  ) as Partial<WantedQueue>;
  return Object.keys(changed).length > 0 ? changed : undefined;
}

/** What `index status` shows of a queue: pg-boss's counts and when they were taken. */
export interface QueueStatus {
  /** Waiting to run: ready now, plus deferred (a retry waiting out its backoff, or scheduled for later). */
  queued: number;
  ready: number;
  deferred: number;
  active: number;
  failed: number;
  /** When pg-boss counted: at most a few seconds ago while a worker supervises, a minute otherwise. */
  countedAt: Date;
}

/**
 * A queue's counts from pg-boss. Its counts are a cache the supervising workers' monitor refreshes (see
 * SUPERVISE_INTERVAL_SECONDS); without `force`, a reader is served that cache up to an hour old, which is how
 * `index status` showed 109 queued jobs while none were left once the workers had been killed. With
 * `force`, pg-boss counts again unless it did within the last minute.
 */
export async function queueStatus(boss: Boss, key: QueueKey): Promise<QueueStatus> {
  const [stats] = await boss.getQueueStats(QUEUES[key].name, { force: true });
  if (!stats) throw new Error(`pg-boss has no queue ${QUEUES[key].name}`);
  return {
    queued: stats.queuedCount,
    ready: stats.readyCount,
    deferred: stats.deferredCount,
    active: stats.activeCount,
    failed: stats.failedCount,
    countedAt: stats.capturedOn,
  };
}

export interface EnqueueOptions {
  startAfter?: Date;
  singletonKey?: string;
}

/**
 * The outbox: enqueues a job with the caller's transaction client, so the job exists exactly when the
 * change that caused it commits.
 */
export async function enqueue<K extends QueueKey>(
  boss: Boss,
  tx: Queryable,
  key: K,
  payload: QueuePayload<K>,
  options: EnqueueOptions = {},
): Promise<void> {
  const queue = QUEUES[key];
  const data = queue.payload.parse(payload);
  await boss.send(queue.name, data, {
    ...options,
    db: { executeSql: (text: string, values?: unknown[]) => tx.query(text, values) },
  });
}

/**
 * The outbox for many jobs of one queue: one multi-row insert with the caller's transaction client (pg-boss
 * `insert`, which takes the queue's retry and expiry options like `send`). Workers are woken at commit.
 * `singletonKeyOf` gives each job its singleton key: a job whose key the queue's policy holds already is
 * skipped, as `send` skips it.
 */
export async function enqueueMany<K extends QueueKey>(
  boss: Boss,
  tx: Queryable,
  key: K,
  payloads: readonly QueuePayload<K>[],
  singletonKeyOf?: (payload: QueuePayload<K>) => string,
): Promise<void> {
  if (payloads.length === 0) return;
  const queue = QUEUES[key];
  await boss.insert(
    queue.name,
    payloads.map((payload) => ({
      data: queue.payload.parse(payload),
      ...(singletonKeyOf && { singletonKey: singletonKeyOf(payload) }),
    })),
    { db: { executeSql: (text: string, values?: unknown[]) => tx.query(text, values) } },
  );
}
