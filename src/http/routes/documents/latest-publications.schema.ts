import { z } from 'zod';
import { parseIsoDateTime } from '../../../domain/component-conditions';
import type { ViewField } from '../../../domain/document-view';

const VIEW_FIELDS = ['systemdata', 'metadata', 'content', 'references'] as const;
const DOCUMENT_TYPES = ['article', 'page', 'data-record'] as const;
export const MAX_LIMIT = 100;
export const MAX_OFFSET = 10_000;
const MAX_IDS = 1000;

const queryBoolean = z
  .enum(['true', 'false'], { message: "must be 'true' or 'false'" })
  .transform((v) => v === 'true');

const commaList = z
  .string()
  .transform((value) => value.split(',').map((item) => item.trim()))
  .refine((items) => items.every((item) => item !== ''), {
    message: 'must be a comma separated list without empty items',
  });

const integerParam = (min: number, max: number) =>
  z
    .string()
    .regex(/^-?\d+$/, { message: 'must be an integer' })
    .transform(Number)
    .pipe(z.number().int().min(min).max(max));

const documentId = z
  .string()
  .regex(/^\d{1,15}$/, { message: 'must be a document id (a positive integer)' })
  .transform(Number);

/** A date-time without an offset is read as UTC, so answers never depend on the server's zone. */
const dateTime = z.string().transform((value, ctx) => {
  const parsed = parseIsoDateTime(value);
  if (parsed === undefined) {
    ctx.addIssue({ code: 'custom', message: 'must be an ISO 8601 date-time, e.g. 2025-01-31T12:00:00Z' });
    return z.NEVER;
  }
  return parsed.toISOString();
});

export const viewFields = commaList
  .refine((items) => items.every((item) => (VIEW_FIELDS as readonly string[]).includes(item)), {
    message: `must be a comma separated list of ${VIEW_FIELDS.join(', ')}`,
  })
  .transform((items) => [...new Set(items)] as ViewField[]);

/** api-spec §4.9 and supplement §4: every query parameter of GET documents/latestPublications. */
export const latestPublicationsQuery = z.strictObject({
  fields: viewFields.optional(),
  limit: integerParam(0, MAX_LIMIT).default(MAX_LIMIT),
  offset: integerParam(0, MAX_OFFSET).default(0),
  reverse: queryBoolean.default(false),
  homepage: queryBoolean.default(false),
  contentTypes: commaList.optional(),
  documentTypes: commaList
    .refine((items) => items.every((item) => (DOCUMENT_TYPES as readonly string[]).includes(item)), {
      message: `must be a comma separated list of ${DOCUMENT_TYPES.join(', ')}`,
    })
    .optional(),
  id: commaList
    .refine((items) => items.every((item) => /^\d{1,15}$/.test(item)), {
      message: 'must be a document id or a comma separated list of document ids',
    })
    .refine((items) => items.length <= MAX_IDS, { message: `must list at most ${MAX_IDS} ids` })
    .transform((items) => items.map(Number))
    .optional(),
  'id.gt': documentId.optional(),
  'id.gte': documentId.optional(),
  'id.lt': documentId.optional(),
  'id.lte': documentId.optional(),
  'publishedAt.gt': dateTime.optional(),
  'publishedAt.gte': dateTime.optional(),
  'publishedAt.lt': dateTime.optional(),
  'publishedAt.lte': dateTime.optional(),
  ignoreComponentConditions: queryBoolean.optional(),
  componentConditions: z.string().optional(),
});
