import type { ProjectRow } from '../../src/db/queries/projects';
import { ApiVersion } from '../../src/domain/api-versions';
import { ProjectConfigSchema } from '../../src/domain/project-config';
import { cursorCodec, searchCursorSignature } from '../../src/domain/search-cursor';
import { parseSortSpec, type SortSpec } from '../../src/domain/search-sort';
import { parseOrThrow, valueOrThrow } from '../../src/domain/validation';
import { searchQuery } from '../../src/http/routes/publications/publications.schema';
import { buildPublicationSearch, type PublicationSearchRead } from '../../src/reads/publications';
import { validationDetails } from '../helpers/errors';

const cursors = cursorCodec(Buffer.alloc(32, 5));

const project: ProjectRow = {
  id: 7,
  handle: 'daily',
  name: 'Daily',
  revisionNumber: 3,
  channelMode: 'configurable',
  defaultChannelId: 1,
  config: ProjectConfigSchema.parse({
    settings: { handle: 'daily' },
    contentTypes: [
      {
        handle: 'regular',
        documentType: 'article',
        metadata: [
          { handle: 'flag', type: 'string', index: true },
          { handle: 'teaser', type: 'text', index: true },
        ],
      },
    ],
  }),
};

const sortOf = (raw: string | undefined, hasSearch = false): SortSpec =>
  valueOrThrow(parseSortSpec(raw, hasSearch), 'sort');

const read = (overrides: Partial<PublicationSearchRead> = {}): Omit<PublicationSearchRead, 'conditions'> => ({
  idsOnly: false,
  fields: ['systemdata'],
  limit: 10,
  offset: 0,
  withTotal: true,
  sort: sortOf(undefined),
  ...overrides,
});

/** The query string as the route's schema reads it (API version 2026-03, which has cursors). */
const atTheEdge = (query: Record<string, unknown>) =>
  parseOrThrow(searchQuery(cursors)(ApiVersion.parse('2026-03')!), query);

describe('the search query schema (the edge)', () => {
  it('when sort comes as a list (repeated, [] or [0]), then it is read as its comma form; blank is the default', () => {
    const comma = atTheEdge({ sort: '-contentType,documentId' }).sort;
    expect(atTheEdge({ sort: ['-contentType', 'documentId'] }).sort).toEqual(comma);
    expect(atTheEdge({ sort: { 21: 'documentId', 20: '-contentType' } }).sort).toEqual(comma);
    expect(atTheEdge({ sort: '' }).sort).toEqual(atTheEdge({}).sort);
    expect(validationDetails(() => atTheEdge({ sort: ['documentId', ''] }))).toEqual({
      name: 'ValidationError',
      sort: 'must be a comma separated list of sort fields without empty items',
    });
  });

  it('when a cursor is not one this server signed, then the 400 on after says to pass a previous one', () => {
    expect(validationDetails(() => atTheEdge({ after: 'garbage' }))).toEqual({
      name: 'ValidationError',
      after: 'invalid cursor: pass the cursor of a previous response',
    });
  });

  it('when a cursor was issued under another sort, then the 400 on after says what must stay the same', () => {
    const cursor = cursors.encode([1, 2], sortOf('documentId').fields.join(','));
    expect(validationDetails(() => atTheEdge({ after: cursor }))).toEqual({
      name: 'ValidationError',
      after:
        'invalid cursor: it was issued for a different search (sort, search, filters, contentTypes, categories, languages and languageGroupId must stay those of the first page); start again without after',
    });
  });

  it('when a cursor was issued under the same sort for other filters, then the edge refuses it too', () => {
    const cursor = cursors.encode(
      [12],
      searchCursorSignature({ sortFields: ['documentId'], filters: { key: 'metadata.flag', term: 'red' } }),
    );
    const filters = JSON.stringify({ key: 'metadata.flag', term: 'blue' });
    expect(validationDetails(() => atTheEdge({ sort: 'documentId', filters, after: cursor })).after).toMatch(
      /issued for a different search/,
    );
    const same = JSON.stringify({ key: 'metadata.flag', term: 'red' });
    expect(atTheEdge({ sort: 'documentId', filters: same, after: cursor }).after).toEqual([12]);
  });

  it('when a signed cursor under the sort asked for holds a value no sort has (an object), then the edge refuses it', () => {
    const cursor = cursors.encode([{ gt: 1 } as never, 2], 'documentId');
    expect(validationDetails(() => atTheEdge({ sort: 'documentId', after: cursor }))).toEqual({
      name: 'ValidationError',
      after: 'invalid cursor: its values do not fit the sort; start again without after',
    });
  });

  it("when a cursor was issued under the sort asked for, then the query carries the cursor's values", () => {
    const cursor = cursors.encode(['red', 12], 'metadata.flag,documentId');
    expect(atTheEdge({ sort: 'metadata.flag', after: cursor }).after).toEqual(['red', 12]);
  });
});

describe('buildPublicationSearch', () => {
  it('when filters and sort are both wrong for the project, then one 400 names each of them', () => {
    const details = validationDetails(() =>
      buildPublicationSearch(
        project,
        read({ filters: [{ key: 'metadata.nope', term: 'x' }], sort: sortOf('metadata.teaser') }),
      ),
    );
    expect(details).toEqual({
      name: 'ValidationError',
      'filters.0.key': expect.stringContaining("unknown filter key 'metadata.nope'"),
      sort: "'metadata.teaser' is a text field and cannot be sorted",
    });
  });

  it("when filters are wrong and the cursor's values do not fit the sort, then one 400 names each of them", () => {
    const details = validationDetails(() =>
      buildPublicationSearch(
        project,
        read({
          filters: [{ key: 'metadata.nope', term: 'x' }],
          sort: sortOf('metadata.flag'),
          after: [1, 2],
        }),
      ),
    );
    expect(details).toEqual({
      name: 'ValidationError',
      'filters.0.key': expect.stringContaining("unknown filter key 'metadata.nope'"),
      after: 'invalid cursor: its values do not fit the sort; start again without after',
    });
  });

  it("when everything is valid, then the request filters on the project first and carries the compiled filter, the sort and the cursor's values", () => {
    const sort = sortOf('metadata.flag');
    const built = buildPublicationSearch(
      project,
      read({ sort, after: ['red', 12], filters: { key: 'metadata.flag', term: 'red' }, search: 'fox' }),
    );
    expect(built.cursorSignature).toBe(
      searchCursorSignature({
        sortFields: sort.fields,
        search: 'fox',
        filters: { key: 'metadata.flag', term: 'red' },
      }),
    );
    expect(built.body).toBe(JSON.stringify(built.request));
    expect(built.request).toMatchObject({
      query: {
        bool: {
          filter: [{ term: { projectId: 7 } }, { term: { 'meta_keyword.flag': 'red' } }],
          must: [expect.any(Object)],
        },
      },
      sort: [
        { 'meta_keyword.flag': { order: 'asc', missing: '_last', unmapped_type: 'keyword' } },
        { documentId: { order: 'asc', missing: Number.MAX_SAFE_INTEGER, unmapped_type: 'long' } },
      ],
      search_after: ['red', 12],
      track_total_hits: true,
    });
  });

  describe('when the cursor is of a relevance sort', () => {
    const sort = sortOf(undefined, true);

    it("then its values end with the last hit's version: the page searches after the rest, and the last hit is found again to score it now", () => {
      const built = buildPublicationSearch(
        project,
        read({ search: 'fox', sort, after: [1.25, 1714557600000, 12, 3] }),
      );
      expect(built.relevanceAt).toBe(0);
      expect(built.request.search_after).toEqual([1.25, 1714557600000, 12]);
      expect(built.anchor?.hits).toEqual([[12, 3]]);
      const anchor = JSON.parse(built.anchor!.body) as Record<string, unknown>;
      expect(anchor).toMatchObject({
        size: 1,
        from: 0,
        query: {
          bool: {
            filter: [{ term: { projectId: 7 } }, { bool: { filter: [{ terms: { documentId: [12] } }] } }],
            must: [expect.any(Object)],
          },
        },
        sort: built.request.sort,
        version: true,
      });
      expect(anchor).not.toHaveProperty('search_after');
    });

    it("then the cursor's earlier hits are scored again with its last, in page order, and the page leaves them all out", () => {
      const built = buildPublicationSearch(
        project,
        read({
          search: 'fox',
          sort,
          filters: { key: 'metadata.flag', term: 'red' },
          after: [1.25, 1714557600000, 12, 3],
          afterEarlierHits: [
            [15, 1],
            [14, 9],
          ],
        }),
      );
      expect(built.anchor?.hits).toEqual([
        [15, 1],
        [14, 9],
        [12, 3],
      ]);
      const anchor = JSON.parse(built.anchor!.body) as {
        size: number;
        query: { bool: { filter: unknown[] } };
      };
      expect(anchor.size).toBe(3);
      // The anchor search keeps the selection: a hit that no longer matches is not found, so not anchored on.
      expect(anchor.query.bool.filter.at(-1)).toEqual({
        bool: {
          filter: [{ term: { 'meta_keyword.flag': 'red' } }, { terms: { documentId: [15, 14, 12] } }],
        },
      });
      expect(built.request.query).toMatchObject({
        bool: { must_not: [{ terms: { documentId: [15, 14, 12] } }] },
      });
    });

    it('then a cursor without the version (made before it was added) does not fit', () => {
      expect(
        validationDetails(() =>
          buildPublicationSearch(project, read({ search: 'fox', sort, after: [1.25, 1714557600000, 12] })),
        ),
      ).toEqual({
        name: 'ValidationError',
        after: 'invalid cursor: its values do not fit the sort; start again without after',
      });
    });

    it('then a sort without relevance has no anchor and no version in its cursor', () => {
      const built = buildPublicationSearch(project, read({ sort: sortOf('documentId'), after: [12] }));
      expect(built.relevanceAt).toBe(-1);
      expect(built.anchor).toBeUndefined();
      expect(built.request.search_after).toEqual([12]);
      expect(built.request.query).not.toHaveProperty('bool.must_not');
    });
  });
});
