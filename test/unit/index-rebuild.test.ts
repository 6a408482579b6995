import { MAX_REBUILD_BATCH_SIZE, rebuildBatchSizeProblem } from '../../src/search/index-manager';

describe('rebuildBatchSizeProblem (index rebuild --batch-size)', () => {
  it('when the batch size is a whole number from 1 to the maximum, then there is no problem', () => {
    for (const batchSize of [1, 7, 1000, MAX_REBUILD_BATCH_SIZE]) {
      expect(rebuildBatchSizeProblem(batchSize)).toBeUndefined();
    }
  });

  it('when it is 0, negative, fractional, not a number or past the maximum, then it says what it must be', () => {
    // 0 read pages of nothing: the rebuild swapped an empty index in for the live one.
    for (const batchSize of [0, -5, 1.5, Number.NaN, Number.POSITIVE_INFINITY, MAX_REBUILD_BATCH_SIZE + 1]) {
      expect(rebuildBatchSizeProblem(batchSize)).toBe(
        `must be a whole number from 1 to ${MAX_REBUILD_BATCH_SIZE}`,
      );
    }
  });
});
