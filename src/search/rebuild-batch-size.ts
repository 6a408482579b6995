/** The batch size of `index rebuild`, checked by the CLI as it parses its options, before it connects. */
export const MAX_REBUILD_BATCH_SIZE = 10_000;

/**
 * Why a rebuild's batch size cannot be used, or undefined: a whole number from 1 to MAX_REBUILD_BATCH_SIZE.
 * A page of 0 documents reads nothing, so the rebuild swapped an empty index in for the live one.
 */
export function rebuildBatchSizeProblem(batchSize: number): string | undefined {
  return Number.isSafeInteger(batchSize) && batchSize >= 1 && batchSize <= MAX_REBUILD_BATCH_SIZE
    ? undefined
    : `must be a whole number from 1 to ${MAX_REBUILD_BATCH_SIZE}`;
}
