import { withTransaction, type Pool } from '../db/pool';
import { documentQueries } from '../db/queries/documents';
import { embargoBlocksPublish } from '../domain/document-commands/apply';
import { enqueue, type Boss } from '../jobs/boss';
import type { QueuePayload } from '../jobs/queues';
import { publishDocument, unpublishDocument } from './publish-document';
import { toDraftState } from './run-document-commands';

export type ScheduledOutcome = 'published' | 'unpublished' | 'postponed' | 'skipped';

const sameInstant = (stored: Date | null, at: string) =>
  stored !== null && stored.getTime() === Date.parse(at);

/**
 * Runs a scheduled publish that is due. It acts only while the stored schedule is still the job's `at`: a
 * cancelled or replaced schedule, or a job that already ran (it clears the schedule), makes it a no-op, so a
 * job delivered twice publishes once. It publishes the draft as it is now, not as it was when scheduled.
 * An embargo in force postpones the schedule to the embargo's end, or drops it when the embargo has none.
 */
export async function runScheduledPublish(
  pool: Pool,
  boss: Boss,
  job: QueuePayload<'scheduledPublish'>,
  now: Date,
): Promise<ScheduledOutcome> {
  return withTransaction(pool, async (tx) => {
    const documents = documentQueries(tx);
    const row = await documents.findByIdForUpdate(job.projectId, job.documentId);
    if (row === undefined || !sameInstant(row.publishScheduleAt, job.at)) return 'skipped';

    const { embargo } = toDraftState(row);
    if (embargoBlocksPublish(embargo, now)) {
      const until = embargo?.until ?? null;
      await documents.setPublishSchedule(row.projectId, row.id, until);
      if (until === null) return 'skipped';
      await enqueue(
        boss,
        tx,
        'scheduledPublish',
        { projectId: row.projectId, documentId: row.id, at: until },
        { startAfter: new Date(until) },
      );
      return 'postponed';
    }

    await documents.setPublishSchedule(row.projectId, row.id, null);
    await publishDocument(tx, boss, row, { now });
    return 'published';
  });
}

/** Runs a scheduled unpublish that is due; the same rules as `runScheduledPublish`, without embargo. */
export async function runScheduledUnpublish(
  pool: Pool,
  boss: Boss,
  job: QueuePayload<'scheduledUnpublish'>,
): Promise<ScheduledOutcome> {
  return withTransaction(pool, async (tx) => {
    const documents = documentQueries(tx);
    const row = await documents.findByIdForUpdate(job.projectId, job.documentId);
    if (row === undefined || !sameInstant(row.unpublishScheduleAt, job.at)) return 'skipped';
    await documents.clearUnpublishSchedule(row.projectId, row.id);
    if (row.latestPublicationId === null) return 'skipped';
    await unpublishDocument(tx, boss, row);
    return 'unpublished';
  });
}
