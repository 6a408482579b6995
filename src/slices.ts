/**
 * Consecutive slices of at most `size` items, in order; none when there are no items. Batches of a list
 * (index jobs, rows per INSERT, import batches) all cut the same way.
 */
export function slicesOf<T>(items: readonly T[], size: number): T[][] {
  if (!Number.isInteger(size) || size < 1) throw new Error(`slice size must be a positive integer: ${size}`);
  const slices: T[][] = [];
  for (let start = 0; start < items.length; start += size) slices.push(items.slice(start, start + size));
  return slices;
}
