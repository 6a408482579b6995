import { z } from 'zod';
import {
  commaList,
  dateTimeParam,
  dateTimeRoundingUpParam,
  documentTypesList,
  idParam,
  emptyMeansDefault,
  integerParam,
  queryBoolean,
} from '../../query-params';
import { listAnswer } from '../../answers';

/**
 * supplement §7: every query parameter of GET publicationEvents[/{channelHandle}]; and `after`, the event id
 * the vendor's API took before id ranges (deprecated there for id.gt, which it means), still sent by sync
 * tools written against it. With id.gt as well, both hold: the larger bound decides.
 */
export const publicationEventsQuery = z
  .strictObject({
    limit: emptyMeansDefault(integerParam(0, 1000).default(100)),
    reverse: queryBoolean.default(false).describe('descending id'),
    contentTypes: commaList.optional().describe('comma separated'),
    documentTypes: documentTypesList.optional(),
    'id.gt': idParam.optional().describe('event id range'),
    'id.gte': idParam.optional().describe('event id range'),
    'id.lt': idParam.optional().describe('event id range'),
    'id.lte': idParam.optional().describe('event id range'),
    'createdAt.gt': dateTimeParam.optional().describe('creation time range'),
    'createdAt.gte': dateTimeRoundingUpParam.optional().describe('creation time range'),
    'createdAt.lt': dateTimeRoundingUpParam.optional().describe('creation time range'),
    'createdAt.lte': dateTimeParam.optional().describe('creation time range'),
    after: idParam
      .optional()
      .describe('deprecated: the same as id.gt (events after this event id)')
      .meta({ deprecated: true }),
  })
  .transform(({ after, ...query }) => ({
    ...query,
    'id.gt': after === undefined ? query['id.gt'] : Math.max(after, query['id.gt'] ?? after),
  }));
export type PublicationEventsQuery = z.output<typeof publicationEventsQuery>;

/** One publication event (supplement §7), as GET publicationEvents answers it. */
export const publicationEventAnswer = z
  .strictObject({
    id: z.number().int().describe('grows with every event; page with id.gt'),
    createdAt: z.iso
      .datetime()
      .describe(
        'when the event joined the stream, as its publish committed; never behind an earlier id. The events of ' +
          'one transaction (an import batch) share it: resume with createdAt.gte and id.gt of the last event seen',
      ),
    projectId: z.number().int(),
    channelId: z.number().int(),
    documentId: z.number().int(),
    documentType: z.enum(['article', 'page', 'data-record']),
    eventType: z
      .enum(['publish', 'unpublish', 'update'])
      .describe(
        'update: a live document published again, or its publication dates changed by an import (the same publicationId)',
      ),
    publicationId: z.number().int().nullable(),
  })
  .meta({ id: 'PublicationEvent' });

/** GET publicationEvents[/{channelHandle}]: ascending id (descending with reverse); `{results}` from 2026-01. */
export const publicationEventsAnswer = listAnswer(publicationEventAnswer);
