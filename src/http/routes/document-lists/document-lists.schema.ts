import { z } from 'zod';
import { fromCheck } from '../../../domain/validation';
import type { ListDocumentField } from '../../../reads/document-lists';
import { documentAnswer } from '../documents/document-view.schema';
import { listAnswer } from '../../answers';
import {
  commaList,
  conditionParams,
  emptyMeansDefault,
  integerParam,
  listOfValues,
  queryBoolean,
  withConditions,
} from '../../query-params';

export const MAX_LIMIT = 100;
export const MAX_OFFSET = 10_000;
/** List ids are Postgres `integer`s: a larger one names no list, and is refused before it reaches a query. */
export const MAX_LIST_ID = 2_147_483_647;
export const LIST_FIELDS = ['systemdata', 'metadata', 'content'] as const;

/** `{id}` of GET document-lists/{id}. */
export const documentListParams = z.object({
  id: z
    .string()
    .regex(/^[1-9]\d*$/, { message: 'must be a positive integer list id' })
    .refine((digits) => digits.length <= 10 && Number(digits) <= MAX_LIST_ID, {
      message: `must be a list id of at most ${MAX_LIST_ID}`,
    })
    .transform(Number)
    .meta({ type: 'integer', minimum: 1, maximum: MAX_LIST_ID }),
});

/** api-spec §4.7: every query parameter of GET document-lists. */
export const documentListsQuery = z.strictObject({
  name: z
    .string()
    .min(1, { message: 'must not be empty' })
    .max(200, { message: 'must be at most 200 characters long' })
    // Names are stored composed (checkListName): an accent spelt with a combining mark finds them too.
    .transform((name) => name.normalize('NFC'))
    .optional()
    .describe('only lists whose name contains this (case-insensitive, either spelling of an accent)'),
  limit: emptyMeansDefault(integerParam(0, MAX_LIMIT).default(10).describe('documents resolved per list')),
  offset: emptyMeansDefault(integerParam(0, MAX_OFFSET).default(0).describe('lists skipped')),
});

/** api-spec §4.8: every query parameter of GET document-lists/{id}. */
export const documentListQuery = z
  .strictObject({
    reverse: queryBoolean
      .default(true)
      .describe('true: newest-added first; false: the order seen in the editor'),
    fields: emptyMeansDefault(
      commaList
        .refine((items) => items.every((item) => (LIST_FIELDS as readonly string[]).includes(item)), {
          message: `must be a comma separated list of ${LIST_FIELDS.join(', ')}`,
        })
        .transform((items) => [...new Set(items)] as ListDocumentField[])
        .meta(listOfValues(LIST_FIELDS))
        .default(['systemdata', 'metadata'])
        .describe(`comma separated: ${LIST_FIELDS.join(', ')}; empty means the default`),
    ),
    limit: emptyMeansDefault(integerParam(0, MAX_LIMIT).default(MAX_LIMIT).describe('documents resolved')),
    ...conditionParams,
  })
  .transform(fromCheck(withConditions));

/**
 * A document list with its published documents resolved (supplement §8; src/reads/document-lists.ts): the
 * first `limit` of them in the order asked, each with the fields asked for (the listing: systemdata, metadata).
 */
export const documentListAnswer = z
  .strictObject({
    id: z.number().int(),
    name: z.string(),
    documents: z
      .array(documentAnswer)
      .describe('the published documents of the list; unpublished ones are skipped'),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
  })
  .meta({ id: 'DocumentList' });

/** GET document-lists: at most 100 lists; `{results}` from 2026-01. */
export const documentListsAnswer = listAnswer(documentListAnswer);
