import { z } from 'zod';
import { perVersion, type ApiVersion } from '../../../domain/api-versions';
import type { ViewField } from '../../../domain/document-view';
import { fromCheck } from '../../../domain/validation';
import {
  commaList,
  conditionParams,
  emptyMeansDefault,
  VIEW_FIELDS,
  viewFields,
  withConditions,
} from '../../query-params';

/** supplement §4: v1 keeps the older default; beta and 2025-03+ add references. */
const V1_DEFAULT_FIELDS: readonly ViewField[] = ['systemdata', 'metadata', 'content'];
const DEFAULT_FIELDS: readonly ViewField[] = [...V1_DEFAULT_FIELDS, 'references'];

/**
 * `fields` of latestDraft, latestPublication and latestPublications. The default is the route's
 * (`defaultViewFields`), so the description says it, v1's included: the description of each version is made
 * from the dated versions' schemas, where v1 has none of its own.
 */
export const viewFieldsParam = emptyMeansDefault(
  viewFields
    .optional()
    .describe(
      `comma separated: ${VIEW_FIELDS.join(', ')}; default ${DEFAULT_FIELDS.join(',')} ` +
        `(v1: ${V1_DEFAULT_FIELDS.join(',')}); empty means the default`,
    ),
);

/** The query of documents/{id}/latestDraft and latestPublication, per API version. */
export const latestDraftQuery = perVersion((version) =>
  z
    .strictObject({
      fields: viewFieldsParam,
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

/** The fields a view has when `fields` is not sent: v1's older default, or the later one. */
export function defaultViewFields(version: ApiVersion): ViewField[] {
  return [...(version.isV1 ? V1_DEFAULT_FIELDS : DEFAULT_FIELDS)];
}
