import { z } from 'zod';
import { documentIdParam } from '../../query-params';

// latestPublication takes the same query as latestDraft (fields, renditions up to 2025-07, component conditions).
export { defaultViewFields, latestDraftQuery as latestPublicationQuery } from './latest-draft.schema';

export const renditionHandlesParams = z.object({
  documentId: documentIdParam,
  renditionHandles: z
    .string()
    .transform((value) => value.split(',').map((item) => item.trim()))
    .refine((items) => items.every((item) => item !== ''), {
      message: 'must be a comma separated list of handles',
    }),
});
