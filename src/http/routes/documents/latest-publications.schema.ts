import { z } from 'zod';
import { fromCheck } from '../../../domain/validation';
import { listAnswer } from '../../answers';
import { documentAnswer } from './document-view.schema';
import { viewFieldsParam } from './latest-draft.schema';
import {
  commaList,
  conditionParams,
  dateTimeParam,
  dateTimeRoundingUpParam,
  documentTypesList,
  idListParam,
  idParam,
  emptyMeansDefault,
  integerParam,
  queryBoolean,
  withConditions,
} from '../../query-params';

export const MAX_LIMIT = 100;
export const MAX_OFFSET = 10_000;
const MAX_IDS = 1000;

/**
 * A bound of lastPublicationDate as epoch milliseconds: any instant a Date holds, where toISOString writes one
 * past 9999 or before year 0 (UTC) with an expanded year (+010000-01-01T...), which Elasticsearch cannot read.
 */
const publishedAtBound = (param: typeof dateTimeParam) =>
  param
    .transform((date) => date.getTime())
    .optional()
    .describe('lastPublicationDate range');

/** api-spec §4.9 and supplement §4: every query parameter of GET documents/latestPublications. */
export const latestPublicationsQuery = z
  .strictObject({
    fields: viewFieldsParam,
    limit: emptyMeansDefault(integerParam(0, MAX_LIMIT).default(MAX_LIMIT)),
    offset: emptyMeansDefault(integerParam(0, MAX_OFFSET).default(0)),
    reverse: queryBoolean.default(false).describe('ascending lastPublicationDate'),
    homepage: queryBoolean.default(false).describe('only the project homepage'),
    contentTypes: commaList.optional().describe('comma separated'),
    documentTypes: documentTypesList.optional(),
    id: idListParam(MAX_IDS)
      .optional()
      .describe(`one document id or a comma separated list of at most ${MAX_IDS}`),
    'id.gt': idParam.optional().describe('document id range'),
    'id.gte': idParam.optional().describe('document id range'),
    'id.lt': idParam.optional().describe('document id range'),
    'id.lte': idParam.optional().describe('document id range'),
    'publishedAt.gt': publishedAtBound(dateTimeParam),
    'publishedAt.gte': publishedAtBound(dateTimeRoundingUpParam),
    'publishedAt.lt': publishedAtBound(dateTimeRoundingUpParam),
    'publishedAt.lte': publishedAtBound(dateTimeParam),
    ...conditionParams,
  })
  .transform(fromCheck(withConditions));

/** The answer of GET documents/latestPublications: document views; `{results}` from 2026-01. */
export const latestPublicationsAnswer = listAnswer(documentAnswer);
