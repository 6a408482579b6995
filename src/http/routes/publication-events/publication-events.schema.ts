import { z } from 'zod';
import { parseIsoDateTime } from '../../../domain/component-conditions';

const DOCUMENT_TYPES = ['article', 'page', 'data-record'] as const;

const queryBoolean = z
  .enum(['true', 'false'], { message: "must be 'true' or 'false'" })
  .transform((v) => v === 'true');
const commaList = z
  .string()
  .transform((value) => value.split(',').map((item) => item.trim()))
  .refine((items) => items.every((item) => item !== ''), {
    message: 'must be a comma separated list without empty items',
  });
const eventId = z
  .string()
  .regex(/^\d{1,15}$/, { message: 'must be a non-negative integer' })
  .transform(Number);
const dateTime = z.string().transform((value, ctx) => {
  const parsed = parseIsoDateTime(value);
  if (parsed === undefined) {
    ctx.addIssue({ code: 'custom', message: 'must be an ISO 8601 date-time, e.g. 2025-01-31T12:00:00Z' });
    return z.NEVER;
  }
  return parsed;
});

/** supplement §7: every query parameter of GET publicationEvents[/{channelHandle}]. */
export const publicationEventsQuery = z.strictObject({
  limit: z
    .string()
    .regex(/^\d+$/, { message: 'must be an integer' })
    .transform(Number)
    .pipe(z.number().int().min(0).max(1000))
    .default(100),
  reverse: queryBoolean.default(false),
  contentTypes: commaList.optional(),
  documentTypes: commaList
    .refine((items) => items.every((item) => (DOCUMENT_TYPES as readonly string[]).includes(item)), {
      message: `must be a comma separated list of ${DOCUMENT_TYPES.join(', ')}`,
    })
    .optional(),
  'id.gt': eventId.optional(),
  'id.gte': eventId.optional(),
  'id.lt': eventId.optional(),
  'id.lte': eventId.optional(),
  'createdAt.gt': dateTime.optional(),
  'createdAt.gte': dateTime.optional(),
  'createdAt.lt': dateTime.optional(),
  'createdAt.lte': dateTime.optional(),
});
export type PublicationEventsQuery = z.output<typeof publicationEventsQuery>;
