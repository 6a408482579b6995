import { z } from 'zod';
import { perVersion, type ApiVersion } from '../../../domain/api-versions';
import type { ViewField } from '../../../domain/document-view';
import { fromCheck } from '../../../domain/validation';
import { commaList, conditionParams, viewFields, withConditions } from '../../query-params';

/** The query of documents/{id}/latestDraft and latestPublication, per API version. */
export const latestDraftQuery = perVersion((version) =>
  z
    .strictObject({
      fields: viewFields.optional(),
      // Renditions were removed in 2025-09 (api-spec §9): from then on the parameter itself is an error.
      renditions: version.atMost('2025-07')
        ? commaList.optional().describe('comma separated rendition handles')
        : z
            .never({ error: `is not available in API version ${version.label}, only up to 2025-07` })
            .optional(),
      ...conditionParams,
    })
    .transform(fromCheck(withConditions)),
);

/** supplement §4: v1 keeps the older default; beta and 2025-03+ add references. */
export function defaultViewFields(version: ApiVersion): ViewField[] {
  return version.isV1
    ? ['systemdata', 'metadata', 'content']
    : ['systemdata', 'metadata', 'content', 'references'];
}
