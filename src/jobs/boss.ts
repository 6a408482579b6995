import { PgBoss } from 'pg-boss';
import type { Queryable } from '../db/pool';
import { QUEUES, type QueueKey, type QueuePayload } from './queues';

export type Boss = PgBoss;

/** The pg-boss instance on the app's own database. `start()` creates its schema and every queue. */
export async function startBoss(databaseUrl: string, options: { supervise: boolean } = { supervise: false }) {
  // LISTEN/NOTIFY: a job sent on a notify queue wakes its workers at the sender's commit instead of at their
  // next poll (one dedicated listening connection per process).
  const boss = new PgBoss({
    connectionString: databaseUrl,
    supervise: options.supervise,
    schedule: false,
    useListenNotify: true,
  });
  boss.on('error', (error: unknown) => {
    // Surface, never crash: pg-boss retries its own maintenance work.
    console.error('pg-boss error', error);
  });
  await boss.start();
  for (const queue of Object.values(QUEUES)) {
    const existing = await boss.getQueue(queue.name);
    if (!existing) {
      await boss.createQueue(queue.name, { retryLimit: 10, retryDelay: 1, retryBackoff: true, notify: true });
    } else if (!existing.notify) {
      await boss.updateQueue(queue.name, { notify: true });
    }
  }
  return boss;
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
