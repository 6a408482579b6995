import { z } from 'zod';
import {
  commaList,
  dateTimeParam,
  documentTypesList,
  idParam,
  integerParam,
  queryBoolean,
} from '../../query-params';

/** supplement §7: every query parameter of GET publicationEvents[/{channelHandle}]. */
export const publicationEventsQuery = z.strictObject({
  limit: integerParam(0, 1000).default(100),
  reverse: queryBoolean.default(false),
  contentTypes: commaList.optional(),
  documentTypes: documentTypesList.optional(),
  'id.gt': idParam.optional(),
  'id.gte': idParam.optional(),
  'id.lt': idParam.optional(),
  'id.lte': idParam.optional(),
  'createdAt.gt': dateTimeParam.optional(),
  'createdAt.gte': dateTimeParam.optional(),
  'createdAt.lt': dateTimeParam.optional(),
  'createdAt.lte': dateTimeParam.optional(),
});
export type PublicationEventsQuery = z.output<typeof publicationEventsQuery>;
