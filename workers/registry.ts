import type { AppContext } from '../src/context';
import { QUEUES, type QueueKey, type QueuePayload } from '../src/jobs/queues';

/** One job of a batch: its validated payload and how many attempts came before this one (0 on the first). */
export interface QueueJob<K extends QueueKey = QueueKey> {
  id: string;
  data: QueuePayload<K>;
  retryCount?: number;
  /** When the job was sent: for an outbox job, the time of the transaction that caused it. */
  createdOn?: Date;
}

/**
 * A queue's handler: gets a batch of validated payloads; throwing retries the jobs it names (or all).
 * `signal` aborts when the batch outlives its queue's expiry: pg-boss has failed the jobs by then (they run
 * again), so a handler stops rather than finish work whose result no longer counts.
 */
export interface QueueHandler<K extends QueueKey = QueueKey> {
  queue: K;
  batchSize: number;
  /** How often an idle worker polls; LISTEN/NOTIFY usually wakes it sooner. */
  pollingIntervalSeconds?: number;
  handle(ctx: AppContext, jobs: QueueJob<K>[], signal?: AbortSignal): Promise<void>;
}

/**
 * How every queue's worker fetches (workers/main.ts, and the tests' index workers): woken by notifications at
 * the sender's commit, polling only as the backstop, and never waiting for a poll while jobs are ready. After a
 * full batch it fetches again at once; a queue fetched one job at a time does so while pg-boss's count of ready
 * jobs says more than one waits (that count is refreshed every couple of seconds by the supervising worker,
 * src/jobs/boss.ts). Without either, a backlog drained one fetch per notify backstop (2 s): 100 index jobs a
 * second at batches of 200, and one import, webhook or scheduled publish every 2 s.
 */
export const FETCH_OPTIONS = {
  notifyPollingIntervalSeconds: 2,
  burstWhenBatchFull: true,
  burstWhenReadyExceeds: 1,
} as const;

/** Fails loudly when a queue has no handler or two. */
export function checkHandlers(handlers: readonly QueueHandler[]): void {
  const byQueue = new Map<string, number>();
  for (const handler of handlers) byQueue.set(handler.queue, (byQueue.get(handler.queue) ?? 0) + 1);
  const problems = (Object.keys(QUEUES) as QueueKey[]).flatMap((key) => {
    const count = byQueue.get(key) ?? 0;
    return count === 1 ? [] : [`queue ${QUEUES[key].name} has ${count} handlers`];
  });
  if (problems.length > 0) throw new Error(`Refusing to start workers: ${problems.join('; ')}`);
}
