import { z } from 'zod';
import { perVersion } from '../../../domain/api-versions';
import { OTHER_SEARCH, searchCursorSignature, type CursorCodec } from '../../../domain/search-cursor';
import { parseFilterJson } from '../../../domain/search-filters';
import { parseSortSpec } from '../../../domain/search-sort';
import { hasSearchTerms } from '../../../domain/search-text';
import type { ViewField } from '../../../domain/document-view';
import { checkAll, fromCheck, invalid, under, valid, type Checked } from '../../../domain/validation';
import { MAX_LIMIT, MAX_OFFSET } from '../documents/latest-publications.schema';
import { listAnswer, pagedExtra } from '../../answers';
import {
  commaList,
  listOfValues,
  conditionParams,
  emptyMeansDefault,
  integerParam,
  queryListItems,
  VIEW_FIELDS,
  viewFieldsOf,
  withConditions,
} from '../../query-params';
import { documentAnswer } from '../documents/document-view.schema';

const MAX_SEARCH_LENGTH = 1000;

/**
 * `sort` in every form of a list parameter (queryListItems: repeated, `sort[]=`, `sort[0]=`), as the comma list
 * parseSortSpec reads. The comma form is passed on as sent, so a blank `sort=` still means the default and an
 * empty entry gets parseSortSpec's own message.
 */
const sortParam = z
  .unknown()
  .transform(
    fromCheck((value: unknown): Checked<string> => {
      if (typeof value === 'string') return valid(value);
      const items = queryListItems(value, 'sort fields');
      return items.ok ? valid(items.value.join(',')) : items;
    }),
  )
  .meta({ type: 'array', items: { type: 'string' } });

/** `fields` of a search: `id` alone (the ids of each hit only), or view fields. */
function searchFieldsOf(items: string[]): Checked<'id' | ViewField[]> {
  if (items.length === 1 && items[0] === 'id') return valid('id');
  if (items.includes('id')) {
    return invalid([{ path: [], message: 'id cannot be combined with other fields: use fields=id alone' }]);
  }
  const fields = viewFieldsOf(items);
  return fields === undefined
    ? invalid([{ path: [], message: `must be id, or a comma separated list of ${VIEW_FIELDS.join(', ')}` }])
    : valid(fields);
}

/**
 * api-spec §4.15 and supplement §5: every query parameter of GET publications/search, per API version, with
 * the process's cursor codec (built once per process, when the route is registered). `filters` comes out as
 * parsed JSON, `sort` as a SortSpec and `after` as the values of a cursor this server signed for that sort and
 * selection (searchCursorSignature); what only the project's indexed metadata can tell (filter keys and types,
 * sort fields, the kinds of the cursor's values) is judged by the read (src/reads/publications.ts), through
 * the same issues → 400 path.
 */
export const searchQuery = (cursors: CursorCodec) =>
  perVersion((version) =>
    z
      .strictObject({
        search: z
          .string()
          .max(MAX_SEARCH_LENGTH, { message: `must be at most ${MAX_SEARCH_LENGTH} characters long` })
          .optional()
          .describe(
            "full text; quote a part for an exact phrase; an apostrophe matches however it is typed (' or ’)",
          ),
        contentTypes: commaList.optional().describe('comma separated, OR'),
        categories: commaList.optional().describe('comma separated category ids, OR'),
        languages: commaList.optional().describe('comma separated locales, OR'),
        languageGroupId: z
          .string()
          .min(1, { message: 'must not be empty' })
          .optional()
          .describe('all translations of a document'),
        filters: z
          .string()
          .transform(fromCheck(parseFilterJson))
          .optional()
          .describe('JSON filter expression (supplement §5)'),
        sort: sortParam
          .optional()
          .describe(
            'comma separated; - prefix descends; default -sortDate,-documentId (relevance first with search terms)',
          ),
        fields: emptyMeansDefault(
          commaList
            .transform(fromCheck(searchFieldsOf))
            .meta(listOfValues([...VIEW_FIELDS, 'id']))
            .optional()
            .describe('comma separated, or id for {documentId, projectId} items; empty means the default'),
        ),
        limit: emptyMeansDefault(integerParam(0, MAX_LIMIT).default(10)),
        offset: emptyMeansDefault(integerParam(0, MAX_OFFSET).default(0)),
        after: version.wrapsLists
          ? z
              .string()
              .min(1, { message: 'must not be empty' })
              .optional()
              .describe(
                'the cursor of the previous page, signed by the server; valid for the same project, sort, search, filters and list parameters only',
              )
          : z
              .never({
                error: `is not available in API version ${version.label}; cursors exist from 2026-01`,
              })
              .optional(),
        ...conditionParams,
      })
      .refine((query) => query.after === undefined || query.offset === 0, {
        message: 'use after or offset, not both: a cursor already says where the page starts',
        path: ['after'],
      })
      .transform(
        fromCheck(({ sort, after, ...query }) => {
          // The default sort and whether relevance is allowed depend on the search having terms.
          const spec = under('sort', parseSortSpec(sort, hasSearchTerms(query.search)));
          // A cursor belongs to one search: it is opened under the sort and selection asked for, once the sort
          // is readable.
          const signature = () =>
            spec.ok ? searchCursorSignature({ ...query, sortFields: spec.value.fields }) : '';
          const checked = checkAll({
            rest: withConditions(query),
            sort: spec,
            after:
              after === undefined || !spec.ok
                ? valid(undefined)
                : under('after', cursors.decode(after, signature(), OTHER_SEARCH)),
          });
          return checked.ok
            ? valid({
                ...checked.value.rest,
                sort: checked.value.sort,
                after: checked.value.after?.values,
                // The project is known to the read, which refuses a cursor of another project.
                afterProjectId: checked.value.after?.projectId,
                afterEarlierHits: checked.value.after?.earlierHits,
              })
            : checked;
        }),
      ),
  );

export type SearchQuery = z.output<ReturnType<ReturnType<typeof searchQuery>>>;

/** An item of `fields=id`: the ids of a hit only. */
export const searchIdsItemAnswer = z
  .strictObject({ documentId: z.number().int(), projectId: z.number().int() })
  .meta({ id: 'DocumentIds' });

/**
 * The answer of GET publications/search (api-spec §4.15, supplement §5): document views of the fields asked
 * for, or `{documentId, projectId}` items with fields=id; `{results, total, cursor}` from 2026-01.
 */
export const searchAnswer = listAnswer(
  z.union([documentAnswer, searchIdsItemAnswer]),
  pagedExtra('signs the sort values of the last hit'),
);
