import { z } from 'zod';

/**
 * Every pg-boss queue of the service with its payload schema. Jobs carry ids, never copies of the data:
 * a handler re-reads Postgres, so a retried, duplicated or late job writes the current truth.
 */
export const QUEUES = {
  /** Bring the index entry of one document in line with Postgres (index it, or delete it when unpublished). */
  indexDocument: {
    name: 'index-document',
    payload: z.object({ projectId: z.number().int(), documentId: z.number().int() }),
  },
  /** Run one `POST import/documents` request. */
  importDocuments: {
    name: 'import-documents',
    payload: z.object({ importJobId: z.string().uuid() }),
  },
  /** Publish a document at its scheduled time (document commands addPublishSchedule). */
  scheduledPublish: {
    name: 'scheduled-publish',
    payload: z.object({ projectId: z.number().int(), documentId: z.number().int(), at: z.string() }),
  },
  /** Unpublish a document at its scheduled time (document commands addUnpublishSchedule). */
  scheduledUnpublish: {
    name: 'scheduled-unpublish',
    payload: z.object({ projectId: z.number().int(), documentId: z.number().int(), at: z.string() }),
  },
} as const;

export type QueueKey = keyof typeof QUEUES;
export type QueuePayload<K extends QueueKey> = z.infer<(typeof QUEUES)[K]['payload']>;
export const QUEUE_NAMES: readonly string[] = Object.values(QUEUES).map((queue) => queue.name);
