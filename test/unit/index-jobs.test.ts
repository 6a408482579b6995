import { indexJobsFor, settleIndexJob } from '../../src/jobs/index-jobs';
import { slicesOf } from '../../src/slices';
import { INDEX_JOB_MAX_DOCUMENTS, QUEUES } from '../../src/jobs/queues';

const range = (from: number, count: number) => Array.from({ length: count }, (_, i) => from + i);

describe('indexJobsFor', () => {
  it('when a batch fits in one job, then it is one job naming every document, in order', () => {
    expect(indexJobsFor(7, [3, 1, 2])).toEqual([{ projectId: 7, documentIds: [3, 1, 2] }]);
  });

  it('when a batch holds more documents than a job may name, then it is cut into jobs of at most that', () => {
    const jobs = indexJobsFor(7, range(1, 1000));
    expect(jobs.map((job) => job.documentIds.length)).toEqual([500, 500]);
    expect(jobs.flatMap((job) => job.documentIds)).toEqual(range(1, 1000));
    expect(indexJobsFor(7, range(1, 5), 2).map((job) => job.documentIds)).toEqual([[1, 2], [3, 4], [5]]);
  });

  it('when a document is named twice, then it is named once', () => {
    expect(indexJobsFor(7, [4, 5, 4])).toEqual([{ projectId: 7, documentIds: [4, 5] }]);
  });

  it('when there are no documents, then there is no job (the payload schema refuses an empty one)', () => {
    expect(indexJobsFor(7, [])).toEqual([]);
    expect(QUEUES.indexDocuments.payload.safeParse({ projectId: 7, documentIds: [] }).success).toBe(false);
  });

  it('then every job it makes is a valid payload of the queue, the largest included', () => {
    for (const job of indexJobsFor(7, range(1, INDEX_JOB_MAX_DOCUMENTS + 1))) {
      expect(QUEUES.indexDocuments.payload.parse(job)).toEqual(job);
    }
    const tooMany = { projectId: 7, documentIds: range(1, INDEX_JOB_MAX_DOCUMENTS + 1) };
    expect(QUEUES.indexDocuments.payload.safeParse(tooMany).success).toBe(false);
  });
});

describe('slicesOf', () => {
  it('when items exceed the size, then consecutive slices of at most the size, in order', () => {
    expect(slicesOf([1, 2, 3, 4, 5], 2)).toEqual([[1, 2], [3, 4], [5]]);
    expect(slicesOf([1, 2], 200)).toEqual([[1, 2]]);
    expect(slicesOf([], 3)).toEqual([]);
  });

  it('when the size is not a positive integer, then it throws instead of looping', () => {
    expect(() => slicesOf([1], 0)).toThrow(/positive integer/);
    expect(() => slicesOf([1], 1.5)).toThrow(/positive integer/);
  });
});

describe('settleIndexJob', () => {
  it('when every document was written or refused for good, then the job is done', () => {
    expect(settleIndexJob([1, 2, 3], { retryable: [], unreached: [] })).toEqual({ kind: 'done' });
  });

  it('when only some documents are refused for now, then only they go on, to a new job, and the rest is not written again', () => {
    expect(settleIndexJob([1, 2, 3, 4], { retryable: [3, 1], unreached: [] })).toEqual({
      kind: 'handOn',
      unreached: [],
      retryable: [1, 3],
    });
  });

  it('when the job ran out of time, then the documents it did not reach go on to a new job', () => {
    expect(settleIndexJob([1, 2, 3, 4, 5], { retryable: [2], unreached: [4, 5] })).toEqual({
      kind: 'handOn',
      unreached: [4, 5],
      retryable: [2],
    });
  });

  it('when every document is refused for now, then the job fails for pg-boss to retry with its backoff and limit', () => {
    expect(settleIndexJob([1, 2], { retryable: [1, 2], unreached: [] })).toEqual({ kind: 'retry' });
    expect(settleIndexJob([1, 2, 3], { retryable: [1], unreached: [2, 3] })).toEqual({ kind: 'retry' });
  });

  it('when the fetch ran out of time before the job was reached at all, then it is sent again as it is', () => {
    expect(settleIndexJob([1, 2, 3], { retryable: [], unreached: [1, 2, 3] })).toEqual({
      kind: 'handOn',
      unreached: [1, 2, 3],
      retryable: [],
    });
  });

  it('then handing on a job it reached always names fewer documents than the job had, so it cannot go on forever', () => {
    // Every split of a job's documents into written, refused for now and not reached.
    const documentIds = [1, 2, 3, 4];
    for (let mask = 0; mask < 3 ** documentIds.length; mask += 1) {
      const fate = documentIds.map((_, i) => Math.floor(mask / 3 ** i) % 3);
      const retryable = documentIds.filter((_, i) => fate[i] === 1);
      const unreached = documentIds.filter((_, i) => fate[i] === 2);
      const settlement = settleIndexJob(documentIds, { retryable, unreached });
      if (settlement.kind !== 'handOn' || unreached.length === documentIds.length) continue;
      expect(settlement.unreached.length + settlement.retryable.length).toBeLessThan(documentIds.length);
      expect([...settlement.unreached, ...settlement.retryable].sort()).toEqual(
        [...retryable, ...unreached].sort(),
      );
    }
  });
});
