import { slicesOf } from '../slices';
import { INDEX_JOB_MAX_DOCUMENTS, type QueuePayload } from './queues';

/**
 * The index-documents jobs for documents of one project, in order: each document once, at most `max` a job.
 * Pure, so tested on its own.
 */
export function indexJobsFor(
  projectId: number,
  documentIds: readonly number[],
  max: number = INDEX_JOB_MAX_DOCUMENTS,
): QueuePayload<'indexDocuments'>[] {
  return slicesOf([...new Set(documentIds)], max).map((slice) => ({ projectId, documentIds: slice }));
}

/**
 * What becomes of an index-documents job once its run stopped, from the documents it named, those still
 * refused for now (429/5xx after the indexer's own retries) and those it did not reach (the time of the
 * worker's fetch was up):
 * - `done`: nothing left;
 * - `retry`: nothing written or refused for good (every document it reached is refused for now): the job
 *   fails and pg-boss retries it whole, with its backoff and retry limit;
 * - `handOn`: the rest go to new jobs, `unreached` to run now and `retryable` after a delay, and this job
 *   completes. Each new job names fewer documents than the job it comes from, so handing on cannot go on
 *   forever, with one exception that makes no work twice either: a job the fetch's time did not reach at all
 *   is sent again as it is (the first job of a fetch always gets at least one bulk request).
 */
export type IndexJobSettlement =
  { kind: 'done' } | { kind: 'retry' } | { kind: 'handOn'; unreached: number[]; retryable: number[] };

export function settleIndexJob(
  documentIds: readonly number[],
  outcome: { retryable: readonly number[]; unreached: readonly number[] },
): IndexJobSettlement {
  const named = [...new Set(documentIds)];
  const retryable = new Set(outcome.retryable);
  const unreached = new Set(outcome.unreached);
  const left = named.filter((id) => retryable.has(id) || unreached.has(id));
  if (left.length === 0) return { kind: 'done' };
  const reachedNone = named.every((id) => unreached.has(id));
  if (left.length === named.length && !reachedNone) return { kind: 'retry' };
  return {
    kind: 'handOn',
    unreached: left.filter((id) => unreached.has(id)),
    retryable: left.filter((id) => retryable.has(id)),
  };
}
