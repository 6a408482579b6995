import { z } from 'zod';
import { queryBoolean } from '../../query-params';

export const categoryParams = z.object({ categoryId: z.string().min(1) });

/** api-spec §4.2: every query parameter of GET categories/{categoryId}. */
export const categoryQuery = z.strictObject({
  inheritMetadata: queryBoolean.default(false),
});
