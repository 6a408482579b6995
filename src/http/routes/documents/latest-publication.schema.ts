import { z } from 'zod';
import { fromCheck } from '../../../domain/validation';
import { conditionParams, documentIdParam, withConditions } from '../../query-params';

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

/**
 * The query of latestPublication/renditions/{renditionHandles}: the component conditions, which the vendor's
 * reference lists for the route (api-spec §2.2: endpoints that support them take both), and nothing else.
 */
export const renditionsQuery = z.strictObject({ ...conditionParams }).transform(fromCheck(withConditions));
