import { z } from 'zod';

/**
 * pg-boss options of a queue. `expireInSeconds` is how long a job may stay active: past it the worker
 * aborts the handler's signal and pg-boss retries the job, and a worker that crashed holding it loses it to
 * the next monitor pass of any worker (every few seconds, see startBoss). So it is what a job really needs
 * with a wide margin, not pg-boss's default of 15 minutes, which left published documents out of search for
 * that long after a worker was killed.
 */
export interface QueueOptions {
  expireInSeconds: number;
  /** A job that legitimately runs long instead sends heartbeats; a crashed worker's job is retried this soon. */
  heartbeatSeconds?: number;
  retryLimit: number;
  retryDelay: number;
  retryBackoff: boolean;
  /**
   * pg-boss's queue policy, set when the queue is created (it cannot change later). `short`: at most one job
   * per singletonKey waits to run; another sent meanwhile is dropped (one may run while the next waits).
   */
  policy?: 'short';
}

/** Most documents one index-documents job names: ~3 bulk requests of the default INDEXER_BATCH_SIZE. */
export const INDEX_JOB_MAX_DOCUMENTS = 500;

/**
 * How long a worker writes the index-documents jobs of one fetch (their expiries run together, from the
 * fetch) before it hands the documents it has not reached to new jobs: a third of their expiry, so the bulk
 * request in flight at that moment still ends well before it.
 */
export const INDEX_JOB_BUDGET_SECONDS = 10;

/** Retried ten times with exponential backoff from one second. */
const RETRIES = { retryLimit: 10, retryDelay: 1, retryBackoff: true } as const;

/**
 * Every pg-boss queue of the service with its payload schema and options. Jobs carry ids, never copies of
 * the data: a handler re-reads Postgres, so a retried, duplicated or late job writes the current truth.
 */
export const QUEUES = {
  /**
   * Bring the index entries of a batch of documents in line with Postgres (index them, or delete them when
   * unpublished). A batch of 200 takes well under a second; 15 s leaves room for a slow Elasticsearch.
   */
  indexDocument: {
    name: 'index-document',
    payload: z.object({ projectId: z.number().int(), documentId: z.number().int() }),
    options: { ...RETRIES, expireInSeconds: 15 },
  },
  /**
   * The same for the documents an import batch published or unpublished, one job per batch (at most
   * INDEX_JOB_MAX_DOCUMENTS of them; a larger batch sends several, see indexJobsFor): one job row instead of
   * one per document. The worker writes them in bulk requests of INDEXER_BATCH_SIZE and hands what is left
   * to new jobs once it has written for INDEX_JOB_BUDGET_SECONDS, so a job ends well inside its expiry
   * however slow Elasticsearch is, and an expired job is not run again from the start forever. `sentAt`: when the
   * documents were first sent, carried by such a handed-on job (the index lag counts from it).
   */
  indexDocuments: {
    name: 'index-documents',
    payload: z.object({
      projectId: z.number().int(),
      documentIds: z.array(z.number().int()).min(1).max(INDEX_JOB_MAX_DOCUMENTS),
      sentAt: z.iso.datetime().optional(),
    }),
    options: { ...RETRIES, expireInSeconds: 30 },
  },
  /**
   * Run one `POST import/documents` request: up to 1,000 documents in batches of 500 (a transaction each), ~2 s
   * here. Heartbeats every 5 s tell a running import from a crashed one; the expiry only bounds a stuck one.
   */
  importDocuments: {
    name: 'import-documents',
    payload: z.object({ importJobId: z.string().uuid() }),
    options: { ...RETRIES, expireInSeconds: 600, heartbeatSeconds: 10 },
  },
  /**
   * Call the webhook of a finished `POST import/documents` (README, "Import webhooks"): sent in the
   * transaction that finishes the import. The handler makes its own bounded attempts with backoff
   * (WEBHOOK_ATTEMPTS, WEBHOOK_TIMEOUT_MS, WEBHOOK_RETRY_DELAY_MS, counted in import_jobs), so pg-boss retries
   * only a delivery whose worker died: it resumes from the attempts already made. Heartbeats tell a running
   * delivery from a crashed one; the expiry only bounds a stuck one.
   */
  importWebhook: {
    name: 'import-webhook',
    payload: z.object({ importJobId: z.string().uuid() }),
    options: { retryLimit: 3, retryDelay: 5, retryBackoff: true, expireInSeconds: 600, heartbeatSeconds: 10 },
  },
  /** Publish a document at its scheduled time (document commands addPublishSchedule): one transaction. */
  scheduledPublish: {
    name: 'scheduled-publish',
    payload: z.object({ projectId: z.number().int(), documentId: z.number().int(), at: z.string() }),
    options: { ...RETRIES, expireInSeconds: 15 },
  },
  /** Unpublish a document at its scheduled time (document commands addUnpublishSchedule): one transaction. */
  scheduledUnpublish: {
    name: 'scheduled-unpublish',
    payload: z.object({ projectId: z.number().int(), documentId: z.number().int(), at: z.string() }),
    options: { ...RETRIES, expireInSeconds: 15 },
  },
  /**
   * Re-enrich one document from its project's enrichment service (POST enrichment/re-enrich): one HTTP call
   * of at most 30 s (the project's timeout) and one transaction. Deduplicated per document while one waits.
   */
  reEnrichDocument: {
    name: 're-enrich-document',
    payload: z.object({ projectId: z.number().int(), documentId: z.number().int() }),
    options: { ...RETRIES, expireInSeconds: 60, policy: 'short' },
  },
} as const satisfies Record<string, { name: string; payload: z.ZodType; options: QueueOptions }>;

export type QueueKey = keyof typeof QUEUES;
export type QueuePayload<K extends QueueKey> = z.infer<(typeof QUEUES)[K]['payload']>;
export const QUEUE_NAMES: readonly string[] = Object.values(QUEUES).map((queue) => queue.name);
