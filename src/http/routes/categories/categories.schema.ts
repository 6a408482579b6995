import { z } from 'zod';
import { queryBoolean } from '../../query-params';

export const categoryParams = z.object({ categoryId: z.string().min(1) });

/** api-spec §4.2: every query parameter of GET categories/{categoryId}. */
export const categoryQuery = z.strictObject({
  inheritMetadata: queryBoolean
    .default(false)
    .describe("fill in the parents' metadata, nearest first, never overwriting"),
});

/** One item of GET categories (its answer: these in a bare array, or `{results}` from 2026-01). */
export const categoryItem = z.strictObject({
  id: z.string(),
  label: z.string(),
  path: z.string(),
  parent: z.string().optional().describe('id of the parent category'),
});

/** The answer of GET categories/{categoryId}. */
export const categoryAnswer = z.strictObject({
  id: z.string(),
  label: z.string(),
  path: z.string(),
  metadata: z.record(z.string(), z.unknown()),
});
