import { z } from 'zod';
import type { ApiVersion } from '../../../domain/api-versions';
import { MAX_LIMIT, MAX_OFFSET } from '../documents/latest-publications.schema';
import { commaList, integerParam, queryBoolean, viewFields } from '../../query-params';

const MAX_SEARCH_LENGTH = 1000;

/**
 * api-spec §4.15 and supplement §5: every query parameter of GET publications/search. Built once per API
 * version: building a zod schema (and its compiled fast path) costs more than parsing a query with it.
 */
export function searchQuery(version: ApiVersion) {
  let schema = schemas.get(version.label);
  if (!schema) {
    schema = buildSearchQuery(version);
    schemas.set(version.label, schema);
  }
  return schema;
}

const schemas = new Map<string, ReturnType<typeof buildSearchQuery>>();

function buildSearchQuery(version: ApiVersion) {
  return z
    .strictObject({
      search: z
        .string()
        .max(MAX_SEARCH_LENGTH, { message: `must be at most ${MAX_SEARCH_LENGTH} characters long` })
        .optional(),
      contentTypes: commaList.optional(),
      categories: commaList.optional(),
      languages: commaList.optional(),
      languageGroupId: z.string().min(1, { message: 'must not be empty' }).optional(),
      filters: z.string().optional(),
      sort: z.string().optional(),
      fields: z
        .string()
        .refine((value) => value.trim() === 'id' || !value.split(',').some((item) => item.trim() === 'id'), {
          message: 'id cannot be combined with other fields: use fields=id alone',
        })
        .pipe(z.union([z.literal('id'), viewFields]))
        .optional(),
      limit: integerParam(0, MAX_LIMIT).default(10),
      offset: integerParam(0, MAX_OFFSET).default(0),
      after: version.wrapsLists
        ? z.string().min(1, { message: 'must not be empty' }).optional()
        : z
            .never({ error: `is not available in API version ${version.label}; cursors exist from 2026-01` })
            .optional(),
      ignoreComponentConditions: queryBoolean.optional(),
      componentConditions: z.string().optional(),
    })
    .refine((query) => query.after === undefined || query.offset === 0, {
      message: 'use after or offset, not both: a cursor already says where the page starts',
      path: ['after'],
    });
}
